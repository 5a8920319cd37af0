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
import { processSingleton } from './process-singleton';

/** What happened to messages, by state: `published` (a row inserted and put on the bus), `done`, `dead` (dead-lettered), `lost` (given up by the relay). */
export type MessageState = 'published' | 'done' | 'dead' | 'lost';

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

/**
 * Everything the registry holds, built once per process (kernel/process-singleton.ts): the web
 * server's worker counts in one bundle's copy of this module and /api/metrics renders from another,
 * so a registry per copy would show the route none of the work (and a second set of metrics with
 * the same names cannot join one registry).
 */
function build() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const gauges: { source: GaugeSource | undefined; poolsRead: Promise<PoolDepth[]> | undefined } = { source: undefined, poolsRead: undefined };

  const messagesTotal = new Counter({
    name: 'trellis_messages_total',
    help: 'Messages by what happened to them in this process: published, done, dead (dead-lettered) or lost',
    labelNames: ['state'] as const,
    registers: [registry],
  });
  // Every state's series exists from the start (at 0), so rate() and alerts see it before its first event.
  for (const state of ['published', 'done', 'dead', 'lost'] satisfies MessageState[]) messagesTotal.inc({ state }, 0);

  const stepDuration = new Histogram({
    name: 'trellis_step_duration_seconds',
    help: 'Time a step took to run, by member kind (seconds)',
    labelNames: ['kind'] as const,
    buckets: [0.0001, 0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800],
    registers: [registry],
  });

  const joinWait = new Histogram({
    name: 'trellis_join_wait_seconds',
    help: "Time from a join's first part arriving to the join firing (seconds)",
    buckets: [0.01, 0.1, 0.5, 1, 5, 15, 60, 300, 1800, 3600, 86400],
    registers: [registry],
  });

  const leaseLapses = new Counter({
    name: 'trellis_lease_lapses_total',
    help: 'Heavy steps stopped because their lease lapsed and another delivery took the message over',
    registers: [registry],
  });

  const admissionVerdicts = new Counter({
    name: 'trellis_admission_verdicts_total',
    help: 'Admission verdicts on new runs, by verdict',
    labelNames: ['verdict'] as const,
    registers: [registry],
  });

  // Both pool gauges come from one read per scrape: prom-client collects every metric at once
  // (Promise.all), so the second collect finds the first one's read in flight and shares it.
  const readPools = (): Promise<PoolDepth[]> => {
    const source = gauges.source;
    if (!source) return Promise.resolve([]);
    gauges.poolsRead ??= source.pools().finally(() => (gauges.poolsRead = undefined));
    return gauges.poolsRead;
  };

  /** A per-pool gauge filled at scrape from the shared read, with `pick`'s value of each pool. */
  const poolGauge = (name: string, help: string, pick: (p: PoolDepth) => number): Gauge<'pool'> =>
    new Gauge({
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

  const queueDepth = poolGauge('trellis_queue_depth', 'Messages waiting on a pool queue (read at scrape)', (p) => p.depth);
  const queueOldestAge = poolGauge('trellis_queue_oldest_age_seconds', 'Age of the oldest message waiting on a pool queue, seconds (read at scrape)', (p) => p.oldestAgeSeconds);

  const runsGauge = new Gauge({
    name: 'trellis_runs',
    help: 'Runs by status and cause (read from the database at scrape)',
    labelNames: ['status', 'cause'] as const,
    registers: [registry],
    async collect() {
      const counts = gauges.source ? await gauges.source.runs() : [];
      this.reset();
      for (const r of counts) this.set({ status: r.status, cause: r.cause }, r.count);
    },
  });

  return { registry, gauges, messagesTotal, stepDuration, joinWait, leaseLapses, admissionVerdicts, queueDepth, queueOldestAge, runsGauge };
}

const metrics = processSingleton('metrics.v1', build);

/** The registry `/metrics` renders: this process's engine metrics plus Node's defaults (`process_*`, `nodejs_*`). */
export const registry = metrics.registry;

/** `trellis_messages_total{state}`: messages published, done, dead-lettered and lost by this process. */
export const messagesTotal = metrics.messagesTotal;

/** Counts `n` messages reaching `state` (a whole batch at once); `n` of 0 is a no-op. */
export function countMessages(state: MessageState, n: number): void {
  if (n > 0) messagesTotal.inc({ state }, n);
}

/** `trellis_step_duration_seconds{kind}`: how long a member's step took, by member kind (seconds). */
export const stepDuration = metrics.stepDuration;

/** `trellis_join_wait_seconds`: from a join's first arrived part to its firing (seconds). */
export const joinWait = metrics.joinWait;

/** `trellis_lease_lapses_total`: heavy steps stopped because their row lease lapsed or was taken over (process/lease.ts). */
export const leaseLapses = metrics.leaseLapses;

/** `trellis_admission_verdicts_total{verdict}`: admission control's answers to new runs (e.g. `admitted`, `queued`, `refused`). */
export const admissionVerdicts = metrics.admissionVerdicts;

/** Sets (or with undefined, clears) where the gauges read from; the last engine to start in the process wins. */
export function useGaugeSource(next: GaugeSource | undefined): void {
  metrics.gauges.source = next;
}

/** `trellis_queue_depth{pool}`: messages waiting on each pool's queue, read at scrape. */
export const queueDepth = metrics.queueDepth;

/** `trellis_queue_oldest_age_seconds{pool}`: age of the oldest waiting message per pool, read at scrape. */
export const queueOldestAge = metrics.queueOldestAge;

/** `trellis_runs{status,cause}`: runs in the database by status and cause, read at scrape. */
export const runsGauge = metrics.runsGauge;

/** The text `/metrics` serves, and its content type (Prometheus text format 0.0.4). */
export async function renderMetrics(): Promise<{ body: string; contentType: string }> {
  return { body: await registry.metrics(), contentType: registry.contentType };
}
