import type { NextConfig } from 'next';

/**
 * Built with webpack (`next build --webpack`), not Turbopack: the workspace packages find their files
 * with `new URL('../drizzle', import.meta.url)` (migrations in @trellis/db, the repository root in
 * @trellis/engine). Turbopack treats that as an asset import and fails on a directory ("Module not
 * found: Can't resolve '../drizzle'"). Webpack, with its URL-asset parsing turned off for the server,
 * leaves the expression alone and replaces `import.meta.url` with the source file's own URL, so the
 * paths resolve to the real files in the repository at run time.
 */
/**
 * Security headers on every page and API answer (issue 12): no framing (CSP `frame-ancestors 'none'`
 * and the older X-Frame-Options), no content-type sniffing, no full URLs leaking as referrers. HSTS
 * only when the request came over https (the proxy in front says so with X-Forwarded-Proto), since
 * sending it over plain http would lock a localhost install out of itself. Cookies are `Secure`
 * over https: next-auth v4 does that itself when NEXTAUTH_URL starts with https://.
 */
const SECURITY_HEADERS = [
  { key: 'Content-Security-Policy', value: "frame-ancestors 'none'; base-uri 'self'; object-src 'none'; form-action 'self'" },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
];

const nextConfig: NextConfig = {
  headers: () =>
    Promise.resolve([
      { source: '/:path*', headers: SECURITY_HEADERS },
      {
        source: '/:path*',
        has: [{ type: 'header', key: 'x-forwarded-proto', value: 'https' }],
        headers: [{ key: 'Strict-Transport-Security', value: 'max-age=31536000; includeSubDomains' }],
      },
    ]),
  // Workspace packages ship TypeScript source (`exports: { "./*": "./src/*.ts" }`).
  transpilePackages: ['@trellis/mesh', '@trellis/db', '@trellis/engine', '@trellis/api'],
  // Loaded by Node at run time instead of bundled: PGlite reads its wasm and data files next to its
  // module; pg, ioredis and BullMQ (with its Lua scripts read from disk) expect their own files and sockets.
  serverExternalPackages: ['@electric-sql/pglite', 'pg', 'pg-native', 'bullmq', 'ioredis', 'drizzle-orm', 'pino', 'prom-client', '@opentelemetry/sdk-node', '@opentelemetry/exporter-trace-otlp-http'],
  poweredByHeader: false,
  reactStrictMode: true,
  webpack: (config: { module: { parser?: Record<string, unknown> } }, { isServer }: { isServer: boolean }) => {
    if (isServer) config.module.parser = { ...config.module.parser, javascript: { url: false } };
    return config;
  },
};

export default nextConfig;
