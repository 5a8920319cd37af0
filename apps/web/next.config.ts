import type { NextConfig } from 'next';

/**
 * Built with webpack (`next build --webpack`), not Turbopack: the workspace packages find their files
 * with `new URL('../drizzle', import.meta.url)` (migrations in @trellis/db, the repository root in
 * @trellis/engine). Turbopack treats that as an asset import and fails on a directory ("Module not
 * found: Can't resolve '../drizzle'"). Webpack, with its URL-asset parsing turned off for the server,
 * leaves the expression alone and replaces `import.meta.url` with the source file's own URL, so the
 * paths resolve to the real files in the repository at run time.
 */
const nextConfig: NextConfig = {
  // Workspace packages ship TypeScript source (`exports: { "./*": "./src/*.ts" }`).
  transpilePackages: ['@trellis/mesh', '@trellis/db', '@trellis/engine', '@trellis/api'],
  // Loaded by Node at run time instead of bundled: PGlite reads its wasm and data files next to its
  // module; pg, ioredis and BullMQ (with its Lua scripts read from disk) expect their own files and sockets.
  serverExternalPackages: ['@electric-sql/pglite', 'pg', 'pg-native', 'bullmq', 'ioredis', 'drizzle-orm'],
  poweredByHeader: false,
  reactStrictMode: true,
  webpack: (config: { module: { parser?: Record<string, unknown> } }, { isServer }: { isServer: boolean }) => {
    if (isServer) config.module.parser = { ...config.module.parser, javascript: { url: false } };
    return config;
  },
};

export default nextConfig;
