/**
 * The engine's configuration, read once from the environment and validated with zod.
 * The only file in this package allowed to read `process.env` (lint enforces it).
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The repository root, found from this file's location so the working directory never matters. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

const intFrom = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const EnvSchema = z.object({
  DATABASE_URL: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v : undefined)),
  TRELLIS_DATA_DIR: z.string().trim().optional(),
  REDIS_URL: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v : undefined)),
  TRELLIS_QUEUE_PREFIX: z
    .string()
    .regex(/^(\{[A-Za-z0-9_.-]+\}|[A-Za-z0-9_.-]+)$/, 'letters, digits, ".", "_" or "-", optionally wrapped in one pair of braces (a Redis Cluster hash tag)')
    .optional(),
  TRELLIS_MAX_DEPTH: intFrom(64),
  TRELLIS_ATTEMPTS: intFrom(3),
  TRELLIS_STALL_AFTER_SECONDS: intFrom(120),
  TRELLIS_CONCURRENCY: intFrom(200),
  TRELLIS_LOCK_DURATION_MS: intFrom(30_000),
  TRELLIS_STALLED_INTERVAL_MS: intFrom(15_000),
  TRELLIS_MAX_STALLED_COUNT: intFrom(1),
  TRELLIS_LEASE_MS: z.coerce.number().int().positive().optional(),
  // Retention (runtime/retention.ts): days after a run ends before its trail is pruned; 0 keeps it forever.
  TRELLIS_RETENTION_DAYS: z.coerce.number().nonnegative().default(30),
  TRELLIS_RETENTION_DEAD_DAYS: z.coerce.number().nonnegative().default(90),
  TRELLIS_INLINE_MAX: z.coerce.number().int().min(0).default(25_000),
  TRELLIS_INLINE_LEASE_MS: z.coerce.number().int().positive().default(10_000),
  TRELLIS_DRAIN_MS: intFrom(25_000),
  // The orchestrator leader's lease (runtime/leader.ts): whole ms, at least 100.
  TRELLIS_LEADER_LEASE_MS: z.coerce.number().int().min(100, 'a whole number of milliseconds, at least 100').default(15_000),
  // Admission (runs/admission.ts): how long a run admitted to wait may wait before it fails capacity_wait_exceeded.
  TRELLIS_CAPACITY_WAIT_SECONDS: z.coerce.number().int().positive().default(3600),
  // Concurrency limits (runs/run-limits.ts): open top-level runs per user and per mesh; 0 = no limit.
  TRELLIS_MAX_RUNS_PER_USER: z.coerce.number().int('a whole number of runs (0 = no limit)').min(0, 'a whole number of runs (0 = no limit)').default(0),
  TRELLIS_MAX_RUNS_PER_MESH: z.coerce.number().int('a whole number of runs (0 = no limit)').min(0, 'a whole number of runs (0 = no limit)').default(0),
  TRELLIS_RESERVED_SHARE: z.coerce.number().min(0, 'TRELLIS_RESERVED_SHARE is a share of worker slots from 0 to 1').max(1, 'TRELLIS_RESERVED_SHARE is a share of worker slots from 0 to 1').default(0.2),
  TRELLIS_SECRETS_KEY: z.string().trim().optional(),
  TRELLIS_SECRETS_KEY_FILE: z.string().trim().optional(),
  TRELLIS_EGRESS_ALLOW: z.string().trim().default('*'),
  TRELLIS_SANDBOX_ROOT: z.string().trim().optional(),
  TRELLIS_SANDBOX_USER: z.string().trim().regex(/^[a-z_][a-z0-9_-]*$/i, 'a user name').optional(),
  // Observability (runtime/health.ts, kernel/metrics.ts, kernel/log.ts, runtime/tracing.ts).
  TRELLIS_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  TRELLIS_HEALTH_HOST: z.string().trim().min(1).default('0.0.0.0'),
  TRELLIS_METRICS_TOKEN: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v : undefined)),
  TRELLIS_LOG_FORMAT: z.enum(['text', 'json']).default('text'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v : undefined))
    .pipe(z.url({ protocol: /^https?$/, error: 'an http(s) URL such as http://otel-collector:4318' }).optional()),
  OTEL_SERVICE_NAME: z.string().trim().min(1).optional(),
  // Test-only fault injection (see EngineConfig.crashAfterCommit); never set in production.
  TRELLIS_TEST_CRASH_AFTER_COMMIT: z.enum(['0', '1']).default('0'),
});

/** After the drain deadline, how long a stopping process may take to hand work back before it exits anyway, ms. */
export const DRAIN_GRACE_MS = 5_000;

/** Validated engine settings; see each field for its unit. */
export interface EngineEnv {
  /** `postgres://…`, or undefined for the embedded PGlite database. */
  databaseUrl: string | undefined;
  /** PGlite data directory, `<repo>/.data/pglite` unless TRELLIS_DATA_DIR says otherwise. */
  dataDir: string;
  redisUrl: string;
  /**
   * The bus: `local` (the in-process bus, kernel/local-bus.ts) on the embedded database with no
   * REDIS_URL set; `redis` (BullMQ) when REDIS_URL is set or on Postgres, where several processes
   * share the work and only Redis reaches all of them.
   */
  bus: 'redis' | 'local';
  /**
   * BullMQ key prefix; tests use their own so queues never mix. Default: `{trellis}` on Postgres (every
   * process of one installation shares it), `{trellis-<8 hex of the data directory>}` on the embedded
   * database, so two checkouts sharing one Redis never take each other's jobs. The braces are a Redis
   * Cluster hash tag: every key of the install (all pools' queues, flows across them, the install
   * and service keys) hashes to one slot, which BullMQ needs on a cluster. An explicit
   * TRELLIS_QUEUE_PREFIX is taken as written; wrap it in braces to run on a cluster.
   */
  queuePrefix: string;
  /** True when TRELLIS_QUEUE_PREFIX set the prefix (a default prefix of the embedded database may be taken over, runtime/install.ts). */
  queuePrefixSet: boolean;
  /** Deepest message allowed (hops from the head) before the run fails. */
  maxDepth: number;
  /** Deliveries per message before it is dead-lettered. */
  attempts: number;
  /** Milliseconds without movement before a running run is flagged `stalled`. */
  stallAfterMs: number;
  /** Jobs a worker holds at once. */
  concurrency: number;
  /** BullMQ lock (the claim) on a job, renewed at half of it while the job runs (see runtime/worker.ts). */
  lockDurationMs: number;
  /** How often each worker looks for jobs whose lock lapsed. */
  stalledIntervalMs: number;
  /** Lapses a job survives before BullMQ fails it (its message is then dead-lettered by the relay). */
  maxStalledCount: number;
  /** A heavy message's lease without renewal (TRELLIS_LEASE_MS; default twice the lock, see process/lease.ts). */
  leaseMs: number;
  /** Most light messages a worker keeps inline (TRELLIS_INLINE_MAX, default 25 000; 0 = off; see process/inline-lane.ts). */
  inlineMax: number;
  /** An inline message's row lease without renewal, ms (TRELLIS_INLINE_LEASE_MS, default 10 000). */
  inlineLeaseMs: number;
  /**
   * TRELLIS_DRAIN_MS (default 25 000): on SIGTERM or SIGINT a process stops claiming and waits this
   * long for the work in hand; then it hands back what still runs (runtime/boot.ts `closeOnSignal`)
   * and exits at the latest {@link DRAIN_GRACE_MS} later. Keep it under the platform's own stop
   * timeout (Kubernetes' `terminationGracePeriodSeconds`, 30 s by default) minus that grace.
   */
  drainMs: number;
  /**
   * TRELLIS_LEADER_LEASE_MS (default 15 000, at least 100): the lease under which one orchestrator
   * leads and runs the singleton duties (relay, sweeps, stall detector, schedules, event pump),
   * renewed every third of it. A standby takes over within about this long after the leader dies,
   * and at once when it stops on SIGTERM (runtime/leader.ts).
   */
  leaderLeaseMs: number;
  /** TRELLIS_CAPACITY_WAIT_SECONDS (default 3600): how long a run waiting at admission may wait when its mesh sets no `limits.capacityWaitSeconds`. */
  capacityWaitSeconds: number;
  /**
   * TRELLIS_MAX_RUNS_PER_USER (default 0 = no limit): how many top-level runs one user may have
   * running or stalled at once; more are held `queued` until one ends (runs/run-limits.ts).
   */
  maxRunsPerUser: number;
  /**
   * TRELLIS_MAX_RUNS_PER_MESH (default 0 = no limit): the same per mesh, whoever started the runs;
   * a mesh's `limits.maxConcurrentRuns` may lower it, never raise it.
   */
  maxRunsPerMesh: number;
  /** TRELLIS_RESERVED_SHARE (default 0.2): the share of each worker's slots kept for normal work while urgent work waits (kernel/priority.ts). */
  reservedShare: number;
  /** Test-only: the process kills itself right after its first commit, before adding the children's jobs. */
  crashAfterCommit: boolean;
  /** TRELLIS_RETENTION_DAYS (default 30; 0 = never): days after a finished run ends before its messages and join parts are pruned. */
  retentionDays: number;
  /** TRELLIS_RETENTION_DEAD_DAYS (default 90; 0 = never): the same for a run with dead-lettered or lost messages. */
  deadRetentionDays: number;
  /** TRELLIS_SECRETS_KEY: the secrets store's key as text (64 hex or base64 of 32 bytes), when set. */
  secretsKeyText: string | undefined;
  /** Where the generated key lives when TRELLIS_SECRETS_KEY is unset (TRELLIS_SECRETS_KEY_FILE, default `<data dir>/../secrets.key`). */
  secretsKeyFile: string;
  /** Egress host patterns allowed while an admin has set no rules (TRELLIS_EGRESS_ALLOW, comma-separated; default `*`, any public host). */
  egressDefault: string[];
  /** TRELLIS_SANDBOX_ROOT: where code steps' scratch directories are made (default `<tmpdir>/trellis-sandbox`). */
  sandboxRoot: string | undefined;
  /** TRELLIS_SANDBOX_USER: the user sandboxes run as when Trellis runs as root (default `nobody`). */
  sandboxUser: string | undefined;
  /**
   * TRELLIS_HEALTH_PORT: the port of the worker's or orchestrator's health server (/livez, /readyz,
   * /metrics; runtime/health.ts), or undefined to serve none (the default: two processes on one
   * host would otherwise fight over one port). 0 picks a free port. Containers conventionally set 9464.
   */
  healthPort: number | undefined;
  /** TRELLIS_HEALTH_HOST: the address the health server binds (default `0.0.0.0`, every interface, as probes from outside need). */
  healthHost: string;
  /** TRELLIS_METRICS_TOKEN: when set, /metrics asks for `Authorization: Bearer <token>` (health server and web alike). */
  metricsToken: string | undefined;
  /** TRELLIS_LOG_FORMAT: `text` (default, one readable line per event) or `json` (one JSON object per line, pino; kernel/log.ts). */
  logFormat: 'text' | 'json';
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the OTLP/HTTP collector base URL (traces go to `<url>/v1/traces`); unset = no tracing. */
  otlpEndpoint: string | undefined;
  /** OTEL_SERVICE_NAME: the service name on spans (default: the process's own, e.g. `trellis-worker`). */
  otelServiceName: string | undefined;
}

/**
 * Reads the engine settings from `env` (default `process.env`).
 * @throws Error naming the variable when a value is malformed.
 */
export function loadEngineEnv(env: Record<string, string | undefined> = process.env): EngineEnv {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid setting ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'unreadable'}`);
  }
  const e = parsed.data;
  const dataDir = resolve(e.TRELLIS_DATA_DIR ?? fileURLToPath(new URL('../../../../.data/pglite', import.meta.url)));
  return {
    databaseUrl: e.DATABASE_URL,
    dataDir,
    redisUrl: e.REDIS_URL ?? 'redis://127.0.0.1:6379',
    bus: !e.DATABASE_URL && !e.REDIS_URL ? 'local' : 'redis',
    queuePrefix: e.TRELLIS_QUEUE_PREFIX ?? defaultPrefix(e.DATABASE_URL, dataDir),
    queuePrefixSet: e.TRELLIS_QUEUE_PREFIX !== undefined,
    maxDepth: e.TRELLIS_MAX_DEPTH,
    attempts: e.TRELLIS_ATTEMPTS,
    stallAfterMs: e.TRELLIS_STALL_AFTER_SECONDS * 1000,
    concurrency: e.TRELLIS_CONCURRENCY,
    lockDurationMs: e.TRELLIS_LOCK_DURATION_MS,
    stalledIntervalMs: e.TRELLIS_STALLED_INTERVAL_MS,
    maxStalledCount: e.TRELLIS_MAX_STALLED_COUNT,
    leaseMs: e.TRELLIS_LEASE_MS ?? 2 * e.TRELLIS_LOCK_DURATION_MS,
    inlineMax: e.TRELLIS_INLINE_MAX,
    inlineLeaseMs: e.TRELLIS_INLINE_LEASE_MS,
    drainMs: e.TRELLIS_DRAIN_MS,
    leaderLeaseMs: e.TRELLIS_LEADER_LEASE_MS,
    capacityWaitSeconds: e.TRELLIS_CAPACITY_WAIT_SECONDS,
    maxRunsPerUser: e.TRELLIS_MAX_RUNS_PER_USER,
    maxRunsPerMesh: e.TRELLIS_MAX_RUNS_PER_MESH,
    reservedShare: e.TRELLIS_RESERVED_SHARE,
    crashAfterCommit: e.TRELLIS_TEST_CRASH_AFTER_COMMIT === '1',
    retentionDays: e.TRELLIS_RETENTION_DAYS,
    deadRetentionDays: e.TRELLIS_RETENTION_DEAD_DAYS,
    secretsKeyText: e.TRELLIS_SECRETS_KEY,
    secretsKeyFile: resolve(e.TRELLIS_SECRETS_KEY_FILE ?? resolve(dataDir, '..', 'secrets.key')),
    egressDefault: e.TRELLIS_EGRESS_ALLOW.split(',').map((h) => h.trim()).filter((h) => h !== ''),
    sandboxRoot: e.TRELLIS_SANDBOX_ROOT,
    sandboxUser: e.TRELLIS_SANDBOX_USER,
    healthPort: e.TRELLIS_HEALTH_PORT,
    healthHost: e.TRELLIS_HEALTH_HOST,
    metricsToken: e.TRELLIS_METRICS_TOKEN,
    logFormat: e.TRELLIS_LOG_FORMAT,
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
    otelServiceName: e.OTEL_SERVICE_NAME,
  };
}

/**
 * The default BullMQ prefix, a Redis Cluster hash tag (`{…}`, BullMQ's "Redis Cluster" guide):
 * shared on Postgres, per data directory on the embedded database.
 */
function defaultPrefix(databaseUrl: string | undefined, dataDir: string): string {
  if (databaseUrl) return '{trellis}';
  return `{trellis-${createHash('sha256').update(dataDir).digest('hex').slice(0, 8)}}`;
}
