/**
 * The engine handle: the database, the Redis connection, one BullMQ queue per pool, and settings.
 * Use cases take it (or just its `db`); runtimes (worker, orchestrator) are started on it.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Db } from '@trellis/db/client';
import { isCertificateRefusal } from '@trellis/db/tls';
import { RedisUnreachableError } from './errors';
import { stderrLogger, type Logger } from './log';
import { queueName } from './queues';
import type { Lane } from './priority';
import { LocalBus } from './local-bus';
import type { PlanCache } from '../plan/plan';
import type { AgentMember } from '@trellis/mesh/schema';
import { runDemoAgent } from './demo-agent';
import { processSingleton } from './process-singleton';
import { createGuard, type Guard, type SecuritySettings } from '../policy/guard';

const demoAgent: AgentRunner = (member, payload) => Promise.resolve(runDemoAgent(member, payload));

/** Engine settings, all with defaults; times in milliseconds. */
export interface EngineConfig {
  /** BullMQ key prefix (default `{trellis}`, a Redis Cluster hash tag); tests use their own. */
  prefix: string;
  /** Deepest message allowed before the run fails (default 64). */
  maxDepth: number;
  /** Deliveries per message before dead-lettering (default 3). */
  attempts: number;
  /** First retry delay; doubles each attempt (default 500). */
  backoffMs: number;
  /** A running run with no movement for this long is flagged `stalled` (default 120 000). */
  stallAfterMs: number;
  /** A pending message older than this with no job in Redis is re-added by the relay (default 5 000). */
  relayAfterMs: number;
  /** A message re-added this many times and still missing is declared lost (default 5). */
  maxRequeues: number;
  /** Orchestrator tick: relay, finalizer sweep and stall check (default 1 000). */
  tickMs: number;
  /** Message batches a worker commits at the same time (default 2; 1 suits the embedded database). */
  batchesInFlight: number;
  /**
   * How often the orchestrator vacuums and analyzes the message tables itself (0 = never, the
   * default: Postgres's autovacuum does it). The embedded database has no autovacuum.
   */
  vacuumEveryMs: number;
  /**
   * How often the orchestrator refreshes planner statistics itself (0 = never, the default).
   * Without autovacuum the embedded database plans a growing table from stale numbers and picks
   * sequential scans for lookups by id.
   */
  analyzeEveryMs: number;
  /**
   * Days after a finished (done, failed or cancelled) run ends before the orchestrator prunes its
   * messages and join parts (runtime/retention.ts); 0 = never, the default.
   */
  retentionDays: number;
  /** The same for a run with dead-lettered or lost messages, kept longer for re-opening; 0 = never, the default. */
  deadRetentionDays: number;
  /** Longest an agent member may run on one message before it fails with `timed_out` (default 300 000). */
  agentTimeoutMs: number;
  /**
   * The share of a worker's slots kept for normal work while urgent work waits (default 0.2;
   * TRELLIS_RESERVED_SHARE; kernel/priority.ts): urgent messages take the rest first.
   */
  reservedShare: number;
  /** BullMQ lock on a delivered job: the claim (default 30 000; see runtime/worker.ts for the tuning). */
  lockDurationMs: number;
  /** How often a worker checks for jobs whose lock lapsed (default 15 000). */
  stalledIntervalMs: number;
  /**
   * Lock lapses a job survives before BullMQ fails it for good (default 1: one lapse is survived,
   * the second fails it, so a message whose worker died twice is dead-lettered).
   */
  maxStalledCount: number;
  /**
   * How long a heavy message's lease lasts without renewal (default 60 000, twice the lock: a
   * worker whose event loop blocks or that is paused past its BullMQ lock still holds the lease, so
   * the redelivery waits instead of running the step again). Renewed every third of it.
   */
  leaseMs: number;
  /**
   * Light messages (combine, built-in workflow steps) a worker keeps in its own in-memory queue at
   * most (default 25 000, so a 20,000-way split stays whole; 0 turns the inline lane off). Beyond it, children go to BullMQ as jobs.
   * See process/inline-lane.ts.
   */
  inlineMax: number;
  /**
   * How long the lease on an inline message's row lasts without renewal (default 10 000 ms;
   * renewed once past half of it while queued). When its worker dies, the relay re-adds the row as an
   * ordinary job once the lease has lapsed: within about inlineLeaseMs + relayAfterMs.
   */
  inlineLeaseMs: number;
  /**
   * The orchestrator leader's lease (default 15 000; runtime/leader.ts): one orchestrator leads and
   * runs the singleton duties under it; 0 = no lease, every orchestrator leads unfenced (only for a
   * database one process can open, the embedded one).
   */
  leaderLeaseMs: number;
  /**
   * Test-only fault injection (default false): the process SIGKILLs itself right after its first
   * commit, before the children's jobs are added, so tests can prove the outbox relay adds them.
   */
  crashAfterCommit: boolean;
  /**
   * Seconds a run admitted to wait (runs/admission.ts) may wait before its first message starts,
   * when its mesh sets no `limits.capacityWaitSeconds` (default 3 600, TRELLIS_CAPACITY_WAIT_SECONDS);
   * past it the orchestrator fails the run with `capacity_wait_exceeded`.
   */
  capacityWaitSeconds: number;
  /** Top-level runs one user may have open at once (TRELLIS_MAX_RUNS_PER_USER; 0 = no limit; runs/run-limits.ts). */
  maxRunsPerUser: number;
  /** Top-level runs one mesh may have open at once (TRELLIS_MAX_RUNS_PER_MESH; 0 = no limit); a mesh may only lower it. */
  maxRunsPerMesh: number;
}

/**
 * Runs one agent member on one payload and returns its output payload. `signal` aborts the call
 * (deadline, run ended, lease lost); `context.idempotencyKey` is the delivery's key, handed to the
 * agent's tool calls (MCP `_meta`) so their outside effects can be made idempotent.
 * @throws StepError with a cause (e.g. `agent_or_model_missing`, `timed_out`, `rate_limited`).
 */
export type AgentRunner = (member: AgentMember, payload: unknown, signal: AbortSignal, context?: AgentCallContext) => Promise<unknown>;

/** Where an agent call happens: the delivery's key, and its run, mesh and message (for budgets and the trail). */
export interface AgentCallContext {
  idempotencyKey?: string;
  /** The egress and secrets policy the call must go through. */
  guard?: Guard;
  runId?: string;
  meshId?: string;
  messageId?: string;
}

/** Options for {@link createEngine}. */
export interface EngineOptions extends Partial<EngineConfig> {
  db: Db;
  redisUrl: string;
  /**
   * Which bus carries messages: `redis` (BullMQ, the default) or `local` (the in-process bus of
   * kernel/local-bus.ts, for one process on the embedded database; Redis is never contacted).
   */
  bus?: 'redis' | 'local';
  log?: Logger;
  /** How agent members run; the built-in demo model only, when absent (see members/agent/demo.ts). */
  runAgent?: AgentRunner;
  /** The secrets key, egress default and sandbox settings (docs/security.md); see policy/guard.ts for defaults. */
  security?: Partial<SecuritySettings>;
}

/** An open engine; `close()` releases Redis and the queues (the database belongs to the caller). */
export interface Engine {
  readonly db: Db;
  readonly redisUrl: string;
  readonly config: EngineConfig;
  readonly log: Logger;
  /** The shared, non-blocking connection (producers, relay pipelines). */
  readonly redis: Redis;
  /** Compiled mesh versions, by `meshId@version`. */
  readonly plans: PlanCache;
  /** How agent members run. */
  readonly runAgent: AgentRunner;
  /** What steps may reach (secrets, connections, egress, sandbox), each under its policy. */
  readonly guard: Guard;
  /** The queue of a worker pool's lane, normal when absent (created on first use; kernel/priority.ts). */
  queue(pool: string, lane?: Lane): Queue;
  /** The in-process bus when `bus: 'local'`; then nothing uses `redis` or `queue()`. */
  readonly localBus: LocalBus | undefined;
  close(): Promise<void>;
}

const DEFAULTS: EngineConfig = {
  prefix: '{trellis}',
  maxDepth: 64,
  attempts: 3,
  backoffMs: 500,
  stallAfterMs: 120_000,
  relayAfterMs: 5_000,
  maxRequeues: 5,
  tickMs: 1_000,
  batchesInFlight: 2,
  agentTimeoutMs: 300_000,
  vacuumEveryMs: 0,
  analyzeEveryMs: 0,
  retentionDays: 0,
  deadRetentionDays: 0,
  lockDurationMs: 30_000,
  stalledIntervalMs: 15_000,
  maxStalledCount: 1,
  leaseMs: 60_000,
  inlineMax: 25_000,
  inlineLeaseMs: 10_000,
  leaderLeaseMs: 15_000,
  crashAfterCommit: false,
  capacityWaitSeconds: 3_600,
  maxRunsPerUser: 0,
  maxRunsPerMesh: 0,
  reservedShare: 0.2,
};

/**
 * Creates the engine without touching Redis yet (the connection opens on first use), so a web
 * server can start while Redis is down. Use {@link connectEngine} to fail fast instead.
 */
export function createEngine(options: EngineOptions): Engine {
  const { db, redisUrl, bus = 'redis', log = stderrLogger(), runAgent = demoAgent, security, ...rest } = options;
  const config: EngineConfig = { ...DEFAULTS };
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) Object.assign(config, { [k]: v });
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 3 });
  redis.on('error', () => undefined); // surfaced by the command that failed; avoids unhandled 'error'
  const queues = new Map<string, Queue>();
  const localBus = bus === 'local' ? new LocalBus({ db }) : undefined;
  return {
    db,
    redisUrl,
    config,
    log,
    redis,
    plans: new Map(),
    runAgent,
    guard: createGuard(db, security),
    queue(pool, lane = 'normal') {
      const name = queueName(pool, lane);
      let q = queues.get(name);
      if (!q) {
        q = new Queue(name, { connection: redis, prefix: config.prefix });
        q.on('error', (err) => log.warn('queue error', { pool, lane, error: err.message }));
        queues.set(name, q);
      }
      return q;
    },
    localBus,
    async close() {
      localBus?.close();
      await Promise.all([...queues.values()].map((q) => q.close()));
      queues.clear();
      if (redis.status !== 'end') await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** How {@link assertRedis} probes: each try's limit, and how long to keep trying in all (ms). */
export interface RedisProbe {
  /** Longest one connect + PING may take (default 3 000). */
  timeoutMs?: number;
  /**
   * How long to keep trying, with backoff (250 ms doubling up to 2 s), before giving up (default
   * 10 000): a loaded machine can be slow to answer once, and that is not an unreachable Redis.
   */
  waitMs?: number;
}

/**
 * Checks that Redis answers, trying again with backoff for up to `waitMs` in all.
 * @throws RedisUnreachableError naming REDIS_URL and how to start Redis, with the last error.
 */
export async function assertRedis(redisUrl: string, probe: RedisProbe = {}): Promise<void> {
  const timeoutMs = probe.timeoutMs ?? 3000;
  const deadline = Date.now() + (probe.waitMs ?? 10_000);
  for (let wait = 250; ; wait = Math.min(wait * 2, 2000)) {
    const failure = await pingOnce(redisUrl, Math.max(Math.min(timeoutMs, deadline - Date.now()), 100));
    if (failure === undefined) return;
    // An untrusted certificate stays untrusted: say so now rather than after the whole wait.
    if (isCertificateRefusal(failure) || Date.now() + wait >= deadline) throw new RedisUnreachableError(redactRedis(redisUrl), failure);
    await new Promise((r) => setTimeout(r, wait));
  }
}

/** One connect + PING; the error text, or undefined when Redis answered. */
async function pingOnce(redisUrl: string, timeoutMs: number): Promise<string | undefined> {
  const conn = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // The socket error (e.g. ECONNREFUSED) says more than the rejection ("Connection is closed.").
  let socketError: string | undefined;
  conn.on('error', (err: Error) => (socketError ??= err.message));
  try {
    await conn.connect();
    await conn.ping();
    return undefined;
  } catch (err) {
    return socketError ?? (err instanceof Error ? err.message : String(err));
  } finally {
    conn.disconnect();
  }
}

/** What {@link checkRedisDurability} found. */
export interface RedisDurability {
  /** One plain sentence per setting that can lose queued work. */
  warnings: string[];
  /** False when CONFIG GET is disabled (managed Redis, renamed command): nothing could be checked. */
  checked: boolean;
}

/**
 * Reads the Redis settings that decide whether queued jobs survive: without `appendonly yes` a
 * Redis restart forgets every job added since the last snapshot (the relay re-adds them, slowly,
 * and a message re-added too often is declared lost); with a `maxmemory-policy` other than
 * `noeviction` Redis may evict job keys under memory pressure. Never throws: a server where CONFIG
 * is disabled is reported as unchecked.
 */
export async function checkRedisDurability(redis: Redis): Promise<RedisDurability> {
  const read = async (name: string): Promise<string | undefined> => {
    const got = await redis.call('CONFIG', 'GET', name);
    return Array.isArray(got) && typeof got[1] === 'string' ? got[1] : undefined;
  };
  try {
    const warnings: string[] = [];
    const aof = await read('appendonly');
    if (aof !== undefined && aof !== 'yes') {
      warnings.push(`Redis has appendonly ${aof}: a Redis restart loses queued jobs; set appendonly yes`);
    }
    const policy = await read('maxmemory-policy');
    if (policy !== undefined && policy !== 'noeviction') {
      warnings.push(`Redis has maxmemory-policy ${policy}: it may evict queued jobs; set maxmemory-policy noeviction`);
    }
    return { warnings, checked: true };
  } catch {
    return { warnings: [], checked: false };
  }
}

/** The Redis servers (by URL) this process has already said something about (one set per process, kernel/process-singleton.ts). */
const durabilityTold = processSingleton('engine.redis-durability-told.v1', () => new Set<string>());

/**
 * Logs {@link checkRedisDurability}'s findings: a warning each, or a note that nothing could be
 * checked; once per process for each Redis URL (a web server that boots several engines, or a
 * command that opens one per step, says it once).
 */
export async function warnOnRedisDurability(engine: Engine): Promise<RedisDurability> {
  const found = await checkRedisDurability(engine.redis);
  if (durabilityTold.has(engine.redisUrl)) return found;
  durabilityTold.add(engine.redisUrl);
  for (const w of found.warnings) engine.log.warn(w);
  if (!found.checked) engine.log.info('could not read Redis settings (CONFIG disabled); check appendonly and maxmemory-policy yourself');
  return found;
}

/** Like {@link createEngine}, but checks Redis first (not for the local bus). @throws RedisUnreachableError */
export async function connectEngine(options: EngineOptions): Promise<Engine> {
  if (options.bus !== 'local') await assertRedis(options.redisUrl);
  return createEngine(options);
}

function redactRedis(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable REDIS_URL)';
  }
}
