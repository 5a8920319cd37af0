/**
 * The orchestrator: a loop that every `tickMs` runs the finalizer sweep, the admission pass and the stall detector,
 * and every `relayAfterMs` the outbox relay; beside it the event pump and the entry loops
 * (schedules, webhook callbacks). Several orchestrators may run side by side: these are singleton
 * duties, done only by the one holding the leader's lease (runtime/leader.ts), whose finalizing,
 * admission failures, stall flagging, dead-lettering, lost marking and schedule firings carry its fencing token
 * (kernel/fence.ts). The others stand by, ready, and take over when the lease lapses or is released.
 */
import { sql } from 'drizzle-orm';
import type { Engine } from '../kernel/engine';
import { relayOnce, type RelayCursor } from './relay';
import { detectStalls, sweepRuns } from './sweep';
import { sweepParked } from '../process/sweep-parked';
import { startEventPump } from '../events/pump';
import { startEntryLoops } from './entry-loops';
import { pruneRuns } from './retention';
import { SOLE_LEADER, startLeadership, type Leadership } from './leader';
import { failOverdueWaits } from '../runs/admission';
import { releaseHeldRuns } from '../runs/run-limits';

/** How often the orchestrator prunes runs past their retention (runtime/retention.ts). */
const RETENTION_EVERY_MS = 60_000;

/** A started orchestrator. */
export interface RunningOrchestrator {
  /** Runs one pass now (tests, and the CLI before it waits). */
  tick(): Promise<void>;
  /** True while this orchestrator leads (holds the lease) and does the singleton duties. */
  isLeader(): boolean;
  /** Releases the lease (a standby takes over at once), then stops after the pass in progress. */
  close(): Promise<void>;
}

/** Options for {@link startOrchestrator}. */
export interface OrchestratorOptions {
  /** Its standing (default: contend for the `orchestrator` lease of `leaderLeaseMs`; none when that is 0). */
  leadership?: Leadership;
}

/** Starts the orchestrator loop on `engine`. */
export function startOrchestrator(engine: Engine, options: OrchestratorOptions = {}): RunningOrchestrator {
  const leadership = options.leadership ?? (engine.config.leaderLeaseMs > 0 ? startLeadership(engine) : SOLE_LEADER);
  let cursor: RelayCursor | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let lastProblem = '';
  let relayedAt = 0;
  let vacuumedAt = Date.now();
  let analyzedAt = 0;
  let prunedAt = 0;

  const pass = async () => {
    try {
      await leadership.ready;
      if (!leadership.isLeader()) return;
      const fence = leadership.fence();
      // The relay is a safety net for rare losses: once per `relayAfterMs` is enough, and it spares
      // re-reading a long backlog of waiting messages every tick.
      if (Date.now() - relayedAt >= Math.max(engine.config.relayAfterMs, engine.config.tickMs)) {
        relayedAt = Date.now();
        cursor = (await relayOnce(engine, cursor, fence)).next;
      }
      await sweepRuns(engine, fence);
      await sweepParked(engine);
      // Runs admitted to wait (runs/admission.ts): note those that started, fail those past their limit.
      const overdue = await failOverdueWaits(engine, fence);
      if (overdue.length > 0) engine.log.warn('runs waited past their capacity limit', { runs: overdue });
      // Runs held for a concurrency limit (runs/run-limits.ts): oldest first, those now below it start.
      const released = await releaseHeldRuns(engine, fence);
      if (released.length > 0) engine.log.info('held runs released', { runs: released });
      const { vacuumEveryMs, analyzeEveryMs } = engine.config;
      if (vacuumEveryMs > 0 && Date.now() - vacuumedAt >= vacuumEveryMs) {
        vacuumedAt = analyzedAt = Date.now();
        await engine.db.execute(sql`vacuum (analyze) messages, joins, join_parts, runs`);
      } else if (analyzeEveryMs > 0 && Date.now() - analyzedAt >= analyzeEveryMs) {
        analyzedAt = Date.now();
        await engine.db.execute(sql`analyze messages, joins, join_parts, runs`);
      }
      if (Date.now() - prunedAt >= RETENTION_EVERY_MS) {
        prunedAt = Date.now();
        const pruned = await pruneRuns(engine.db, { days: engine.config.retentionDays, deadDays: engine.config.deadRetentionDays });
        if (pruned.runs.length > 0) engine.log.info('runs pruned', { runs: pruned.runs.length, messages: pruned.messages, joinParts: pruned.joinParts });
      }
      const stalled = await detectStalls(engine, fence);
      if (stalled.length > 0) engine.log.warn('runs stalled', { runs: stalled });
      lastProblem = '';
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // Log a persisting problem (Redis or the database down) once, not every second.
      if (message !== lastProblem) engine.log.error('orchestrator pass failed', { error: message });
      lastProblem = message;
    }
  };
  const loop = () => {
    if (stopped) return;
    current = pass().finally(() => {
      if (!stopped) timer = setTimeout(loop, engine.config.tickMs);
    });
  };
  timer = setTimeout(loop, 0);
  // Live-update events go out on their own loop, never behind a slow pass (events/pump.ts).
  const pump = startEventPump(engine, 250, () => leadership.isLeader());
  // Schedules and webhook callbacks, likewise on their own loop (runtime/entry-loops.ts).
  const entries = startEntryLoops(engine, { leadership });

  return {
    isLeader: () => leadership.isLeader(),
    tick: async () => {
      await current;
      current = pass();
      await current;
    },
    async close() {
      stopped = true;
      if (timer) clearTimeout(timer);
      // The lease goes first, so a standby takes over while this one winds down: a fenced write of
      // the pass in progress is refused from then on, and the other duties are idempotent.
      await leadership.close();
      await current;
      await pump.close();
      await entries.close();
    },
  };
}
