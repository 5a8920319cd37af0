/**
 * The orchestrator's leader lease on real Postgres and Redis: a stale leader's fenced writes are
 * refused and a leader steps down at its first refused renewal; a standby does none of the singleton duties while another leads and takes over at once
 * when the leader stops; and with two orchestrator processes, kill -9 of the leader mid-run hands
 * the duties to the other within the lease, the run ends exact and an every-second schedule fires
 * exactly once per tick with no tick lost. Takeover times are printed.
 */
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { runEntries } from '@trellis/db/schema/run-entries';
import { runs } from '@trellis/db/schema/runs';
import {
  WORD_SPLIT,
  exactness,
  expectExactDone,
  licensesText,
  pages,
  saveOrThrow,
  spawnOrchestrator,
  stopWorkers,
  useWorlds,
  type TestWorld,
  type WorkerProcess,
} from '../../test/harness';
import { fenced, FenceLostError, type Fence } from '../kernel/fence';
import { rows } from '../kernel/sql';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { createSchedule, setScheduleEnabled } from '../schedules/manage-schedules';
import { tickKey } from '../schedules/run-schedules';
import { acquireLease, ORCHESTRATOR_LEASE, renewLease, startLeadership } from './leader';
import { startOrchestrator, type RunningOrchestrator } from './orchestrator';
import { servePools } from './pools';
import { detectStalls } from './sweep';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LEASE_MS = 2000;

async function runStatus(world: TestWorld, runId: string): Promise<string | undefined> {
  const [r] = await rows<{ status: string }>(world.engine.db, sql`select status from runs where id = ${runId}`);
  return r?.status;
}

/** A run with nothing moving: no worker serves it and it last moved an hour ago, so the stall detector flags it. */
async function stalledRun(world: TestWorld, meshId: string): Promise<string> {
  const { runId } = await startRun(world.engine, { meshId, input: { text: 'nothing serves this' } });
  await world.engine.db.execute(sql`update runs set moved_at = now() - interval '1 hour' where id = ${runId}`);
  return runId;
}

async function lease(world: TestWorld): Promise<{ holder: string; token: string } | undefined> {
  const [row] = await rows<{ holder: string; token: string }>(
    world.engine.db,
    sql`select holder, token::text as token from orchestrator_lease where name = ${ORCHESTRATOR_LEASE}`,
  );
  return row;
}

/** Polls until `check` holds; returns the ms it took. @throws after `timeoutMs`. */
async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(10);
  }
  return performance.now() - started;
}

describe('orchestrator leader lease', () => {
  const worlds = useWorlds();
  let processes: WorkerProcess[] = [];
  let orchestrators: RunningOrchestrator[] = [];
  let runtimes: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await stopWorkers(processes);
    processes = [];
    for (const o of orchestrators) await o.close();
    orchestrators = [];
    for (const r of runtimes) await r.close();
    runtimes = [];
  });

  it("refuses a stale leader's fenced writes once another has taken the lease over; a leader steps down when refused", async () => {
    const world = await worlds.open({ stallAfterMs: 1000 });
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const { db } = world.engine;
    const old = (await acquireLease(db, ORCHESTRATOR_LEASE, 'old', 300)) as Fence;
    expect(old.token).toBe('1');
    // While it is live nobody else gets it.
    expect(await acquireLease(db, ORCHESTRATOR_LEASE, 'new', LEASE_MS)).toBeUndefined();
    await sleep(400);
    // Expired: the old holder may not renew, and the first taker moves the token on.
    expect(await renewLease(db, old, LEASE_MS)).toBe(false);
    const next = (await acquireLease(db, ORCHESTRATOR_LEASE, 'new', LEASE_MS)) as Fence;
    expect(next.token).toBe('2');

    const runId = await stalledRun(world, meshId);
    // The old leader resumes (after a pause) and runs its stall detector: refused, nothing written.
    await expect(detectStalls(world.engine, old)).rejects.toBeInstanceOf(FenceLostError);
    await expect(db.transaction((tx) => fenced(tx, old))).rejects.toThrow(/fencing token 1 is no longer held by old: new took it over with token 2/);
    expect(await runStatus(world, runId)).toBe('running');
    // The new leader's write goes through.
    expect(await detectStalls(world.engine, next)).toEqual([runId]);
    expect(await runStatus(world, runId)).toBe('stalled');
    // A lease that ran out refuses its own holder's writes too.
    await db.execute(sql`update orchestrator_lease set expires_at = now() - interval '1 second'`);
    await expect(db.transaction((tx) => fenced(tx, next))).rejects.toThrow(/expired without renewal/);

    // A running leadership steps down at the first refused renewal and takes the lease back, with a new token, once it is free.
    await db.execute(sql`delete from orchestrator_lease`);
    // Renewals every second; without the refusal it would lead on until its own 3 s ran out.
    const leadership = startLeadership(world.engine, { leaseMs: 3000, holder: 'me' });
    runtimes.push(leadership);
    await leadership.ready;
    expect(leadership.fence()).toEqual({ name: ORCHESTRATOR_LEASE, holder: 'me', token: '1' });
    await db.execute(sql`update orchestrator_lease set holder = 'intruder', token = token + 1, expires_at = now() + interval '2.5 seconds'`);
    const stepDown = await until(() => !leadership.isLeader(), 5000, 'it steps down');
    console.log(`stepped down ${Math.round(stepDown)} ms after a takeover (lease 3000 ms, renewal every 1000 ms)`);
    expect(stepDown).toBeLessThan(2000);
    expect(leadership.fence()).toBeUndefined();
    await until(() => leadership.isLeader(), 5000, 'it leads again');
    expect(leadership.fence()?.token).toBe('3');
    await leadership.close();
    const [row] = await rows<{ live: boolean }>(db, sql`select expires_at > now() as live from orchestrator_lease`);
    expect(row?.live).toBe(false);
  });

  it('a standby does no singleton duty while another leads, and takes over at once when the leader stops', async () => {
    // Passes only when the test ticks (the loops' own next pass is a minute away); a long lease, so
    // only the release and the wake-up can make the standby lead soon after the leader stops.
    const world = await worlds.open({ stallAfterMs: 1000, tickMs: 60_000, leaderLeaseMs: 30_000 });
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const leader = startOrchestrator(world.engine);
    orchestrators.push(leader);
    await leader.tick();
    const standby = startOrchestrator(world.engine);
    orchestrators.push(standby);
    await standby.tick();
    expect([leader.isLeader(), standby.isLeader()]).toEqual([true, false]);

    const runId = await stalledRun(world, meshId);
    await standby.tick();
    expect(await runStatus(world, runId)).toBe('running');
    // A takeover the leader has not noticed yet (as after a pause): its pass carries the old token and writes nothing.
    const held = (await lease(world)) as { holder: string; token: string };
    await world.engine.db.execute(sql`update orchestrator_lease set holder = 'intruder', token = token + 1`);
    expect(leader.isLeader()).toBe(true);
    await leader.tick();
    expect(await runStatus(world, runId)).toBe('running');
    await world.engine.db.execute(sql`update orchestrator_lease set holder = ${held.holder}, token = ${held.token}::bigint`);
    await leader.tick();
    expect(await runStatus(world, runId)).toBe('stalled');

    // Stopping releases the lease and wakes the standby: it leads long before the lease would run out.
    const closing = leader.close();
    const handover = await until(() => standby.isLeader(), 2000, 'standby leads after the leader stopped');
    await closing;
    console.log(`in-process handover on close (lease 30 000 ms): ${Math.round(handover)} ms`);
    expect((await lease(world))?.token).toBe('2');
  });

  it('kill -9 of the leader process mid-run: the standby process takes over within the lease, the run ends exact and each schedule tick fires once', { timeout: 120_000 }, async () => {
    // The processes do the duties; this test's engine serves the pool (one process fewer to start)
    // and runs no orchestrator until the end.
    const world = await worlds.open({ leaderLeaseMs: LEASE_MS });
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const env = { TRELLIS_LEADER_LEASE_MS: String(LEASE_MS) };
    processes = await Promise.all([spawnOrchestrator(world, env), spawnOrchestrator(world, env)]);
    const [a, b] = processes as [WorkerProcess, WorkerProcess];
    const pool = servePools(world.engine, ['default'], { concurrency: 200 });
    runtimes.push(pool);
    await until(async () => (await lease(world)) !== undefined, 10_000, 'an orchestrator leads');
    const first = (await lease(world)) as { holder: string; token: string };
    const pidOf = (holder: string) => Number(holder.split(':')[1]);
    const [leader, standby] = pidOf(first.holder) === a.pid ? [a, b] : [b, a];
    expect(pidOf(first.holder)).toBe(leader.pid);

    const actor = { id: 'u-test', email: 'ops@leader.test' };
    const schedule = await createSchedule(world.engine, { name: 'every-second', mesh: 'word-split', cron: '* * * * * *', timezone: 'UTC', input: { text: 'tick tock' }, actor });
    const doc = pages(licensesText(), 8);
    const { runId } = await startRun(world.engine, { meshId, input: { bytes: doc } });
    const done = async () => (await rows<{ n: number }>(world.engine.db, sql`select count(*)::int as n from messages where run_id = ${runId} and status = 'done'`))[0]?.n ?? 0;
    await until(async () => (await done()) >= 60, 60_000, 'the run is under way');
    // The pool stops serving at once, so the run is certainly still going through the takeover
    // however fast this machine finishes it; a fresh pool serves it once the standby leads.
    await pool.close();
    runtimes.splice(runtimes.indexOf(pool), 1);
    await sleep(1200); // at least one schedule tick under the first leader

    leader.signal('SIGKILL');
    const killedAt = performance.now();
    expect(await leader.exited).toBe('SIGKILL');
    expect(await runStatus(world, runId)).toBe('running');
    await until(async () => (await lease(world))?.token === '2', 3 * LEASE_MS, 'the standby takes over');
    const takeover = performance.now() - killedAt;
    const second = (await lease(world)) as { holder: string; token: string };
    expect(pidOf(second.holder)).toBe(standby.pid);
    console.log(`takeover after kill -9 of the leader: ${Math.round(takeover)} ms (lease ${LEASE_MS} ms)`);
    // Within the lease plus one standby attempt (a third of it), with room for a loaded machine.
    expect(takeover).toBeLessThan(LEASE_MS + LEASE_MS / 3 + 1500);
    runtimes.push(servePools(world.engine, ['default'], { concurrency: 200 }));
    await sleep(1200); // ticks under the second leader

    // SIGTERM of the second leader hands over at once to a third orchestrator (this test's own).
    const third = startOrchestrator(world.engine);
    orchestrators.push(third);
    await sleep(100);
    expect(third.isLeader()).toBe(false);
    standby.signal('SIGTERM');
    const termAt = performance.now();
    await until(() => third.isLeader(), 3 * LEASE_MS, 'the third orchestrator leads');
    const handover = performance.now() - termAt;
    console.log(`handover after SIGTERM of the leader: ${Math.round(handover)} ms`);
    expect(await standby.exited).toBe(0);
    // Without the release the third would wait out the lease: at least its length less a renewal period.
    expect(handover).toBeLessThan(LEASE_MS - LEASE_MS / 3);
    expect((await lease(world))?.token).toBe('3');
    await sleep(1200);
    await setScheduleEnabled(world.engine, { schedule: schedule.id, enabled: false, actor });

    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 60_000 });
    await expectExactDone(world.engine.db, view.id);
    expect(Buffer.from((view.output as { text: string }).text, 'utf8').equals(doc)).toBe(true);
    const ex = await exactness(world.engine.db, runId);
    expect(ex.delivered).toBe(ex.published);
    const [multi] = await rows<{ n: number }>(world.engine.db, sql`select count(*)::int as n from messages where run_id = ${runId} and attempts <> 1`);
    expect(multi?.n).toBe(0);

    // Each tick fired once, under whichever orchestrator led then, and none was lost across the takeovers.
    const entries = await world.engine.db.select().from(runEntries);
    const ticks = (await world.engine.db.select().from(runs))
      .map((r) => r.inputName)
      .filter((n): n is string => n?.startsWith('every-second ') === true)
      .map((n) => n.replace('every-second ', ''))
      .sort();
    expect(new Set(ticks).size).toBe(ticks.length);
    expect(entries.map((e) => e.idempotencyKey).filter((k) => k?.startsWith('schedule:')).sort()).toEqual(ticks.map((t) => tickKey(schedule.id, new Date(t))));
    const seconds = ticks.map((t) => Date.parse(t) / 1000);
    expect(seconds.length).toBeGreaterThanOrEqual(4);
    expect(seconds).toEqual(seconds.map((_, i) => (seconds[0] ?? 0) + i));
    const [audits] = await rows<{ n: number }>(world.engine.db, sql`select count(*)::int as n from audit_log where action = 'run.start'`);
    // One `run.start` entry per tick's run, plus the document's run.
    expect(audits?.n).toBe(ticks.length + 1);
  });
});
