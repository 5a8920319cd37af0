/**
 * The web app's settings, read once from the environment and validated with zod. The only file in
 * apps/web that reads `process.env` (lint enforces it). Database and Redis settings are the engine's
 * (`loadEngineEnv`), so the web server and the CLI always agree on where the data lives.
 */
import { z } from 'zod';

const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined));

const WebEnvSchema = z.object({
  NEXTAUTH_SECRET: z
    .string({ error: 'NEXTAUTH_SECRET is not set: give it a long random value, e.g. `openssl rand -base64 32`' })
    .min(16, 'NEXTAUTH_SECRET must be at least 16 characters'),
  NEXTAUTH_URL: optionalText,
  /** `in-process` (default): the web server also runs the orchestrator and a worker. */
  TRELLIS_ENGINE: z.enum(['in-process', 'external']).default('in-process'),
  TRELLIS_ADMIN_EMAIL: optionalText,
  TRELLIS_ADMIN_PASSWORD: optionalText,
  /** The repository root (for examples/meshes); found from the engine's location when unset. */
  TRELLIS_ROOT: optionalText,
  /** Seed examples/meshes on start (default on). */
  TRELLIS_SEED_EXAMPLES: z.enum(['0', '1', 'true', 'false']).default('1'),
  /**
   * How far X-Forwarded-For is trusted for the client address (sign-in limits, audit): unset = not
   * at all; a hop count; or proxies' addresses and CIDR ranges (packages/api security/client-address.ts).
   */
  TRELLIS_TRUST_PROXY: optionalText,
  /** Single sign-on (OpenID Connect): the provider's issuer URL; unset = password sign-in only. */
  TRELLIS_OIDC_ISSUER: optionalText,
  TRELLIS_OIDC_CLIENT_ID: optionalText,
  TRELLIS_OIDC_CLIENT_SECRET: optionalText,
  /** The sign-in button's label. */
  TRELLIS_OIDC_NAME: z.string().trim().min(1).default('single sign-on'),
  /** The scopes asked for; add the one that releases the group claim if the provider needs it (e.g. `groups`). */
  TRELLIS_OIDC_SCOPE: z.string().trim().min(1).default('openid email profile'),
  /** The claim holding the person's groups (a string or a list). */
  TRELLIS_OIDC_ROLE_CLAIM: z.string().trim().min(1).default('groups'),
  /** `value=role` pairs, comma-separated: `trellis-admins=admin,analysts=designer`. */
  TRELLIS_OIDC_ROLES: optionalText,
  /** The role of a new person whose groups map to none; `none` refuses them. */
  TRELLIS_OIDC_DEFAULT_ROLE: z.enum(['admin', 'designer', 'operator', 'viewer', 'none']).default('viewer'),
  /** `create`: first sign-in creates the user; `invited`: only people an admin added may sign in. */
  TRELLIS_OIDC_NEW_USERS: z.enum(['create', 'invited']).default('create'),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
});

export type WebEnv = z.infer<typeof WebEnvSchema>;

let cached: WebEnv | undefined;

/**
 * The validated settings. Read lazily (at request or start time, never at build time).
 * @throws Error naming the variable to fix.
 */
export function webEnv(): WebEnv {
  if (cached) return cached;
  const parsed = WebEnvSchema.safeParse(process.env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid setting ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'unreadable'}`);
  }
  // A self-hosted server: without NEXTAUTH_URL, next-auth builds its URLs from the request's Host.
  if (!parsed.data.NEXTAUTH_URL) process.env.AUTH_TRUST_HOST ??= 'true';
  cached = parsed.data;
  return cached;
}

/** The raw environment, for the engine's own loader (`loadEngineEnv`). */
export function rawEnv(): Record<string, string | undefined> {
  return process.env;
}
