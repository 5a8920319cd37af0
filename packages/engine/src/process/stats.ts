/**
 * Planner statistics for the message tables, refreshed by the workers that fill them.
 *
 * A table that grew from (nearly) empty has no statistics until autovacuum's next pass (its naptime
 * is a minute on Postgres; the embedded database has no autovacuum). Without them Postgres guesses
 * that a run has a couple of hundred messages and plans the hot statements (`update messages …
 * where id = any(…)` joined to the run, and the run-end probe) as scans over every message of the
 * run instead of primary-key probes: O(run size) per batch, so a 20,000-way fan-out in a fresh
 * database costs quadratic time. Measured on word-split with 20,000 words in a fresh database:
 * the first statement of every batch read the whole run (`Bitmap Index Scan on messages_run_idx`).
 * One ANALYZE after the first few thousand rows fixes the plans for the rest of the table's life;
 * it takes a ShareUpdateExclusive lock, which blocks no reads or writes.
 */
import { sql } from 'drizzle-orm';
import type { Engine } from '../kernel/engine';
import { countMessages, joinWait, stepDuration } from '../kernel/metrics';
import { recordStepSpan, tracingOn } from '../kernel/tracing';
import type { CommitResult } from './commit';

/** Rows inserted since the last ANALYZE before another is worth it. */
export const ANALYZE_AFTER_ROWS = 5_000;
/** Least time between two ANALYZEs from one engine, ms (autovacuum takes over in steady state). */
export const ANALYZE_MIN_GAP_MS = 60_000;

interface State {
  since: number;
  at: number;
  running: boolean;
}

const states = new WeakMap<Engine, State>();

/**
 * Counts `rows` new message rows; once {@link ANALYZE_AFTER_ROWS} have accumulated (and at most
 * once per {@link ANALYZE_MIN_GAP_MS}), analyzes `messages` and `join_parts` in the background.
 * Never throws and never waits: a failed ANALYZE is logged and tried again later.
 */
export function noteInserted(engine: Engine, rows: number): void {
  let s = states.get(engine);
  if (!s) states.set(engine, (s = { since: 0, at: -Infinity, running: false }));
  s.since += rows;
  const now = Date.now();
  if (s.running || s.since < ANALYZE_AFTER_ROWS || now - s.at < ANALYZE_MIN_GAP_MS) return;
  const state = s;
  state.running = true;
  state.since = 0;
  state.at = now;
  engine.db
    .execute(sql`analyze messages, join_parts`)
    .catch((err: unknown) => engine.log.warn('analyze failed', { error: err instanceof Error ? err.message : String(err) }))
    .finally(() => (state.running = false));
}

/**
 * Counts what a committed batch did in this process's metrics (kernel/metrics.ts), once per batch:
 * its children published, its messages done (completed, less the light ones whose step threw),
 * its light steps' durations (and their trace spans, kernel/tracing.ts) and its joins' waits.
 */
export function noteCommitted(result: Pick<CommitResult, 'children' | 'handled' | 'failed' | 'steps' | 'joinWaits'>): void {
  countMessages('published', result.children.length);
  countMessages('done', result.handled.size - result.failed.size);
  const traced = tracingOn();
  for (const s of result.steps) {
    stepDuration.observe({ kind: s.kind }, s.seconds);
    if (traced) {
      const { msg } = s;
      recordStepSpan({ runId: msg.runId, messageId: msg.id, member: msg.member, kind: s.kind, attempt: msg.attempts, startedAt: s.startedAt, endedAt: s.startedAt + s.seconds * 1000 });
    }
  }
  for (const seconds of result.joinWaits) joinWait.observe(seconds);
}
