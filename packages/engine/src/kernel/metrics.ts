/**
 * The process's Prometheus metrics (prom-client): one registry per process, the counters and
 * histograms the engine updates as it works, and gauges read at scrape time from a
 * {@link GaugeSource} the runtime supplies (runtime/metrics-source.ts: BullMQ and Postgres).
 *
 * The names are a contract: the Grafana dashboard (docs/operations.md) queries them as written.
 * Counting stays off the hot path's cost: callers count a batch with one `inc(n)`, never a
 * message at a time.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The registry `/metrics` renders: this process's engine metrics plus Node's defaults (`process_*`, `nodejs_*`). */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** What happened to messages, by state: `published` (a row inserted and put on the bus), `done`, `dead` (dead-lettered), `lost` (given up by the relay). */
export type MessageState = 'published' | 'done' | 'dead' | 'lost';

/** `trellis_messages_total{state}`: messages published, done, dead-lettered and lost by this process. */
export const messagesTotal = new Counter({
  name: 'trellis_messages_total',
  help: 'Messages by what happened to them in this process: published, done, dead (dead-lettered) or lost',
  labelNames: ['state'] as const,
  registers: [registry],
});

// Every state's series exists from the start (at 0), so rate() and alerts see it before its first event.
for (const state of ['published', 'done', 'dead', 'lost'] satisfies MessageState[]) messagesTotal.inc({ state }, 0);

/** Counts `n` messages reaching `state` (a whole batch at once); `n` of 0 is a no-op. */
export function countMessages(state: MessageState, n: number): void {
  if (n > 0) messagesTotal.inc({ state }, n);
}

/** `trellis_step_duration_seconds{kind}`: how long a member's step took, by member kind (seconds). */
export const stepDuration = new Histogram({
  name: 'trellis_step_duration_seconds',
  help: 'Time a step took to run, by member kind (seconds)',
  labelNames: ['kind'] as const,
  buckets: [0.0001, 0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800],
  registers: [registry],
});

/** `trellis_join_wait_seconds`: from a join's first arrived part to its firing (seconds). */
export const joinWait = new Histogram({
  name: 'trellis_join_wait_seconds',
  help: "Time from a join's first part arriving to the join firing (seconds)",
  buckets: [0.01, 0.1, 0.5, 1, 5, 15, 60, 300, 1800, 3600, 86400],
  registers: [registry],
});

/** `trellis_lease_lapses_total`: heavy steps stopped because their row lease lapsed or was taken over (process/lease.ts). */
export const leaseLapses = new Counter({
  name: 'trellis_lease_lapses_total',
  help: 'Heavy steps stopped because their lease lapsed and another delivery took the message over',
  registers: [registry],
});

/** `trellis_admission_verdicts_total{verdict}`: admission control's answers to new runs (e.g. `admitted`, `queued`, `refused`). */
export const admissionVerdicts = new Counter({
  name: 'trellis_admission_verdicts_total',
  help: 'Admission verdicts on new runs, by verdict',
  labelNames: ['verdict'] as const,
  registers: [registry],
});

/** One pool's queue at scrape time. */
export interface PoolDepth {
  pool: string;
  /** Messages waiting to be taken (BullMQ: waiting + prioritized + delayed). */
  depth: number;
  /** Age of the oldest waiting message, seconds (0 when none waits). */
  oldestAgeSeconds: number;
}

/** Runs of one status and cause at scrape time (`cause` is `''` for runs without one). */
export interface RunCount {
  status: string;
  cause: string;
  count: number;
}

/** Where the scrape-time gauges come from; runtime/metrics-source.ts builds one from an engine. */
export interface GaugeSource {
  pools(): Promise<PoolDepth[]>;
  runs(): Promise<RunCount[]>;
}

let source: GaugeSource | undefined;

/** Sets (or with undefined, clears) where the gauges read from; the last engine to start in the process wins. */
export function useGaugeSource(next: GaugeSource | undefined): void {
  source = next;
}

// Both pool gauges come from one read per scrape: prom-client collects every metric at once
// (Promise.all), so the second collect finds the first one's read in flight and shares it.
let poolsRead: Promise<PoolDepth[]> | undefined;
function readPools(): Promise<PoolDepth[]> {
  if (!source) return Promise.resolve([]);
  poolsRead ??= source.pools().finally(() => (poolsRead = undefined));
  return poolsRead;
}

/** A per-pool gauge filled at scrape from the shared read, with `pick`'s value of each pool. */
function poolGauge(name: string, help: string, pick: (p: PoolDepth) => number): Gauge<'pool'> {
  return new Gauge({
    name,
    help,
    labelNames: ['pool'] as const,
    registers: [registry],
    async collect() {
      const pools = await readPools();
      this.reset();
      for (const p of pools) this.set({ pool: p.pool }, pick(p));
    },
  });
}

/** `trellis_queue_depth{pool}`: messages waiting on each pool's queue, read at scrape. */
export const queueDepth = poolGauge('trellis_queue_depth', 'Messages waiting on a pool queue (read at scrape)', (p) => p.depth);

/** `trellis_queue_oldest_age_seconds{pool}`: age of the oldest waiting message per pool, read at scrape. */
export const queueOldestAge = poolGauge('trellis_queue_oldest_age_seconds', 'Age of the oldest message waiting on a pool queue, seconds (read at scrape)', (p) => p.oldestAgeSeconds);

/** `trellis_runs{status,cause}`: runs in the database by status and cause, read at scrape. */
export const runsGauge = new Gauge({
  name: 'trellis_runs',
  help: 'Runs by status and cause (read from the database at scrape)',
  labelNames: ['status', 'cause'] as const,
  registers: [registry],
  async collect() {
    const counts = source ? await source.runs() : [];
    this.reset();
    for (const r of counts) this.set({ status: r.status, cause: r.cause }, r.count);
  },
});

/** The text `/metrics` serves, and its content type (Prometheus text format 0.0.4). */
export async function renderMetrics(): Promise<{ body: string; contentType: string }> {
  return { body: await registry.metrics(), contentType: registry.contentType };
}
