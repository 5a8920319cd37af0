/** Publishing the event outbox on Redis pub/sub (run by the orchestrator every tick). */
import { publishSignal } from '../kernel/signals';
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import type { Engine } from '../kernel/engine';
import { repeat, type RunningLoop } from '../kernel/loop';
import { rows, textArray } from '../kernel/sql';
import { runStatuses } from '../kernel/statuses';
import { recordRunSpan, tracingOn } from '../kernel/tracing';
import { eventsChannel, type EngineEvent, type EngineEventKind } from './outbox';

/** Most events one pass publishes; the rest wait for the next pass. */
const PAGE = 500;

/**
 * Reads up to 500 events from the outbox, publishes them as one pub/sub message
 * `{ events: EngineEvent[] }` on `<prefix>:events`, then deletes exactly those rows: a failed
 * publish deletes nothing, so every event is published at least once. No transaction stays open
 * while Redis is asked (the embedded database serves one query at a time). Two orchestrators may
 * publish an event twice, which costs a subscriber one extra refetch. While tracing is on, each
 * run the events say ended gets its root span (kernel/tracing.ts `recordRunSpan`) once they are out.
 * @returns how many events it published.
 */
export async function pumpEvents(engine: Engine): Promise<number> {
  const taken = await rows(
    engine.db,
    sql`select id, kind, run_id, item_id, mesh_id, status from engine_events order by id limit ${PAGE}`,
    z.object({
      id: z.union([z.number(), z.string()]),
      kind: z.custom<EngineEventKind>((v) => typeof v === 'string'),
      run_id: z.string().nullable(),
      item_id: z.string().nullable(),
      mesh_id: z.string().nullable(),
      status: z.string().nullable(),
    }),
  );
  if (taken.length === 0) return 0;
  const events: EngineEvent[] = taken.map((e) => ({ kind: e.kind, runId: e.run_id, itemId: e.item_id, meshId: e.mesh_id, status: e.status }));
  events.push({ kind: 'counts.moved' });
  await publishSignal(engine, eventsChannel(engine.config.prefix), JSON.stringify({ events }));
  const ids = `{${taken.map((e) => String(e.id)).join(',')}}`;
  await engine.db.execute(sql`delete from engine_events where id = any(${ids}::bigint[])`);
  if (tracingOn()) {
    await traceEndedRuns(engine, events).catch((err: unknown) => engine.log.warn('run spans not recorded', { error: err instanceof Error ? err.message : String(err) }));
  }
  return taken.length;
}

/** Run statuses that end a run. */
const ENDED = new Set(['done', 'failed', 'cancelled']);

const EndedRun = z.object({
  id: z.string(),
  mesh_id: z.string(),
  mesh_name: z.string(),
  status: z.string(),
  cause: z.string().nullable(),
  cause_message: z.string().nullable(),
  created_ms: z.number(),
  ended_ms: z.number(),
});

/** Records the root span of every run `events` report ended (a run ended twice, re-opened in between, gets one each time). */
async function traceEndedRuns(engine: Engine, events: readonly EngineEvent[]): Promise<void> {
  const ids = [...new Set(events.filter((e) => (e.kind === 'run.status' || e.kind === 'run.failed') && e.runId && ENDED.has(e.status ?? '')).map((e) => e.runId ?? ''))];
  if (ids.length === 0) return;
  const ended = await rows(
    engine.db,
    sql`select id, mesh_id, mesh_name, status, cause, cause_message,
               (extract(epoch from created_at) * 1000)::float8 as created_ms, (extract(epoch from ended_at) * 1000)::float8 as ended_ms
          from runs where id = any(${textArray(ids)}) and ended_at is not null and status in ${runStatuses('done', 'failed', 'cancelled')}`,
    EndedRun,
  );
  for (const r of ended) {
    recordRunSpan({
      runId: r.id,
      meshId: r.mesh_id,
      meshName: r.mesh_name,
      status: r.status,
      cause: r.cause,
      causeMessage: r.cause_message,
      createdAt: r.created_ms,
      endedAt: r.ended_ms,
    });
  }
}

/** A running pump loop. */
export type RunningPump = Pick<RunningLoop, 'close'>;

/**
 * Pumps the outbox every `everyMs` (default 250) on its own loop, so live updates never wait for a
 * slow orchestrator pass (a long relay page, a vacuum). A failing pass is logged once per new error.
 * With `when`, a pass pumps only while it returns true (the orchestrator leader, runtime/leader.ts).
 */
export function startEventPump(engine: Engine, everyMs = 250, when: () => boolean = () => true): RunningPump {
  return repeat(async () => (when() ? pumpEvents(engine) : 0), everyMs, engine.log, 'event pump failed');
}
