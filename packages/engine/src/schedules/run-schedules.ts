/**
 * The schedule pass (the orchestrator's entry loop, runtime/entry-loops.ts): for each enabled
 * schedule whose `next_at` has come, the ticks from `next_at` to now. A tick noticed within
 * {@link GRACE_MS} of its time starts a run; older ticks are missed (no orchestrator ran then):
 * `skip` starts none of them, `run_once` one run for the latest. Each run is started with the
 * idempotency key `schedule:<id>:<tick ISO time>`, so any number of orchestrators doing the same
 * pass at once start exactly one run per tick; `next_at` then moves on with a compare-and-set on
 * its old value, so only one of them moves it, and a crash before the move only repeats the pass
 * (the key absorbs it). No row lock is held while a run starts.
 */
import { and, eq, isNotNull, lte } from 'drizzle-orm';
import { schedules } from '@trellis/db/schema/schedules';
import { SYSTEM_ACTOR } from '../audit/append';
import type { Engine } from '../kernel/engine';
import { describeError } from '../kernel/errors';
import { fenced, FenceLostError, type Fence } from '../kernel/fence';
import { startEntryRun } from '../runs/start-entry-run';
import { nextTick, parseCron, ticksUntil } from './cron';

/** How late a tick may be noticed and still count as on time, in ms. */
export const GRACE_MS = 60_000;

/** What one pass did. */
export interface SchedulePass {
  /** Runs started (or found started by another orchestrator: `reused`). */
  started: { scheduleId: string; tick: Date; runId: string; reused: boolean }[];
  /** Ticks passed over as missed (`skip`, or all but the latest under `run_once`). */
  skipped: number;
}

/** The idempotency key of a schedule's tick. */
export function tickKey(scheduleId: string, tick: Date): string {
  return `schedule:${scheduleId}:${tick.toISOString()}`;
}

/**
 * Runs one pass at `now` (default: the clock). With `fence` (the orchestrator leader's entry loop)
 * each firing's run start and each `next_at` move check the leader's lease in their transaction.
 * @throws FenceLostError when `fence` lost its lease; the tick in hand starts no run then.
 */
export async function runDueSchedules(engine: Engine, now = new Date(), fence?: Fence): Promise<SchedulePass> {
  const due = await engine.db
    .select()
    .from(schedules)
    .where(and(eq(schedules.enabled, true), isNotNull(schedules.nextAt), lte(schedules.nextAt, now)))
    .orderBy(schedules.nextAt)
    .limit(100);
  const pass: SchedulePass = { started: [], skipped: 0 };
  for (const s of due) {
    if (!s.nextAt) continue;
    let cron;
    try {
      cron = parseCron(s.cron, s.timezone);
    } catch (err) {
      await engine.db.update(schedules).set({ lastError: describeError(err).message, nextAt: null }).where(eq(schedules.id, s.id));
      continue;
    }
    const { ticks } = ticksUntil(cron, s.nextAt, now);
    const onTime = ticks.filter((t) => now.getTime() - t.getTime() <= GRACE_MS);
    const missed = ticks.filter((t) => now.getTime() - t.getTime() > GRACE_MS);
    const toRun = [...(s.missed === 'run_once' && missed.length > 0 ? [missed[missed.length - 1] as Date] : []), ...onTime];
    pass.skipped += missed.length - (toRun.length - onTime.length);
    let lastRunId = s.lastRunId;
    let lastError: string | null = null;
    for (const tick of toRun) {
      try {
        const answer = await startEntryRun(engine, {
          mesh: { id: s.meshId },
          input: { ...s.input, ...(s.input.name ? {} : { name: `${s.name} ${tick.toISOString()}` }) },
          idempotencyKey: tickKey(s.id, tick),
          entry: 'schedule',
          actor: SYSTEM_ACTOR,
          via: `schedule:${s.name}`,
          commitWith: (tx) => fenced(tx, fence),
        });
        lastRunId = answer.runId;
        pass.started.push({ scheduleId: s.id, tick, runId: answer.runId, reused: answer.reused });
      } catch (err) {
        if (err instanceof FenceLostError) throw err;
        // The mesh cannot run, or was removed: the tick is spent, the reason kept on the schedule.
        lastError = describeError(err).message;
        engine.log.warn('schedule tick started no run', { schedule: s.name, tick: tick.toISOString(), error: lastError });
      }
    }
    const last = ticks[ticks.length - 1] ?? s.nextAt;
    const was = s.nextAt;
    await engine.db.transaction(async (tx) => {
      await fenced(tx, fence);
      await tx
        .update(schedules)
        .set({ nextAt: nextTick(cron, now), lastTickAt: last, lastRunId, lastError })
        .where(and(eq(schedules.id, s.id), eq(schedules.nextAt, was)));
    });
  }
  return pass;
}
