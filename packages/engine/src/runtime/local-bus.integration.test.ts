/**
 * The in-process bus's own rules (kernel/local-bus.ts, runtime/local-worker.ts), which have no
 * BullMQ counterpart to share a test with: claims left by a dead process are handed back at start
 * and counted as a stall; a message whose holder died more than `maxStalledCount` times is
 * dead-lettered with the stalled reason; failed deliveries back off by `not_before`; a pending row
 * under a live inline lease (process/inline-lane.ts) is left to its lane until the lease lapses, and
 * a word-split run keeps its light messages in the lane instead of claiming each row; an urgent
 * run's rows are claimed ahead of an older backlog while normal work keeps its reserved share.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { WORD_SPLIT, expectExactDone, licensesText, pages, saveOrThrow, useWorlds } from '../../test/harness';
import { until } from '../../test/recorder';
import { perWordMesh, timedAgent, words } from '../../test/lanes';
import { setMeshUrgent } from '../meshes/set-urgent';
import { rows } from '../kernel/sql';
import { listMessages } from '../runs/list-messages';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { BACKSTOP_MS } from './local-worker';

const ONE = {
  format: 'trellis.mesh/v1',
  name: 'one',
  members: [{ id: 'head', kind: 'workflow', head: true, steps: [{ type: 'pass' }] }],
  channels: [],
};

const FAILING = {
  format: 'trellis.mesh/v1',
  name: 'failing',
  members: [
    { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'map', fields: { count: 'text' } }] },
    { id: 'cut', kind: 'workflow', steps: [{ type: 'split', by: 'word', field: 'missing' }] },
  ],
  channels: [{ from: 'head', to: 'cut' }],
};

describe('the in-process bus', () => {
  const worlds = useWorlds();

  it('hands back a claim a dead process left, counting one stall, and the run finishes', async () => {
    const world = await worlds.open({ bus: 'local' });
    const meshId = await saveOrThrow(world, ONE);
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'x' } });
    // As if a process claimed it for an hour and was killed.
    await world.engine.db.execute(sql`update messages set bus_until = now() + interval '1 hour' where run_id = ${runId}`);
    worlds.start(world);
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    expect(view.status).toBe('done');
    const [m] = await rows<{ bus_stalls: number }>(world.engine.db, sql`select bus_stalls from messages where run_id = ${runId}`);
    expect(m?.bus_stalls).toBe(1);
  }, 60_000);

  it('dead-letters a message whose holders died more than maxStalledCount times', async () => {
    const world = await worlds.open({ bus: 'local', maxStalledCount: 1 });
    const meshId = await saveOrThrow(world, ONE);
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'x' } });
    await world.engine.db.execute(sql`update messages set bus_until = now() - interval '1 second', bus_stalls = 1 where run_id = ${runId}`);
    worlds.start(world);
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    expect(view).toMatchObject({ status: 'failed', cause: 'step_code_failed' });
    const dead = await listMessages(world.engine.db, { runId, status: 'dead' });
    expect(dead.items[0]?.error).toContain('the worker handling it died 2 times');
  }, 60_000);

  it('backs a failing delivery off exponentially and dead-letters it after the last attempt', async () => {
    const world = await worlds.open({ bus: 'local', backoffMs: 400, attempts: 3 });
    const meshId = await saveOrThrow(world, FAILING);
    worlds.start(world);
    const started = Date.now();
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'a b' } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    expect(view.status).toBe('failed');
    // Two waits between three deliveries: 400 ms, then 800 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_200);
    const [m] = await rows<{ bus_tries: number; attempts: number; bus_until: string | null }>(
      world.engine.db,
      sql`select bus_tries, attempts, bus_until::text from messages where run_id = ${runId} and member = 'cut'`,
    );
    expect(m).toEqual({ bus_tries: 3, attempts: 3, bus_until: null });
  }, 60_000);

  it('leaves a pending row under a live inline lease to its lane and claims it once the lease lapses', async () => {
    const world = await worlds.open({ bus: 'local' });
    const meshId = await saveOrThrow(world, ONE);
    const { runId, messageId } = await startRun(world.engine, { meshId, input: { text: 'held inline' } });
    // As a lane's inline child: a pending row leased to a lane of this process.
    await world.engine.db.execute(sql`update messages set lease_owner = 'inline:test', lease_until = now() + interval '1 minute' where id = ${messageId}`);
    worlds.start(world);
    // Woken, and past more than one backstop poll: still not claimed.
    world.engine.localBus?.wake('default');
    await new Promise((r) => setTimeout(r, 2.5 * BACKSTOP_MS));
    const [held] = await rows<{ status: string; claimed: boolean }>(
      world.engine.db,
      sql`select status, bus_until is not null as claimed from messages where id = ${messageId}`,
    );
    expect(held).toEqual({ status: 'pending', claimed: false });
    // Its lane died: the lease lapses and the worker claims the row like any other.
    await world.engine.db.execute(sql`update messages set lease_until = now() - interval '1 second' where id = ${messageId}`);
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    await expectExactDone(world.engine.db, runId);
    expect(view.output).toEqual({ text: 'held inline' });
  }, 60_000);

  it('a word-split run claims a small fraction of its rows: its light messages stay in the inline lane', { timeout: 300_000 }, async () => {
    const world = await worlds.open({ bus: 'local' });
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    worlds.start(world, { pools: ['default'], concurrency: 200 });
    const doc = pages(licensesText(), 2);
    const { runId } = await startRun(world.engine, { meshId, input: { bytes: doc } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 240_000 });
    const ex = await expectExactDone(world.engine.db, runId);
    expect(Buffer.from((view.output as { text: string }).text, 'utf8').equals(doc)).toBe(true);
    expect(ex.delivered).toBe(ex.published);
    // A claimed row keeps its last claim time; an inline one was never claimed.
    const [c] = await rows<{ claimed: number }>(world.engine.db, sql`select count(*)::int as claimed from messages where run_id = ${runId} and bus_until is not null`);
    expect(c?.claimed).toBeGreaterThan(0);
    expect(c?.claimed).toBeLessThan(ex.published / 20);
  });

  it("claims an urgent run's rows ahead of an older backlog, while normal work keeps its reserved share", async () => {
    const agent = timedAgent(20);
    const world = await worlds.open({ bus: 'local', runAgent: agent.runAgent, reservedShare: 0.25 });
    const normalMesh = await saveOrThrow(world, perWordMesh('backlog'));
    const urgentMesh = await saveOrThrow(world, perWordMesh('hurry'));
    await setMeshUrgent(world.engine.db, { meshId: urgentMesh, urgent: true, actor: { id: null, email: null } });
    // 4 slots, 1 of them kept for normal work while urgent work is in hand.
    worlds.start(world, { pools: ['default', 'work'], concurrency: 4 });
    const backlog = await startRun(world.engine, { meshId: normalMesh, input: { text: words('b', 300) } });
    await until(() => (agent.starts.length >= 8 ? true : undefined), 'the backlog to start');
    const urgent = await startRun(world.engine, { meshId: urgentMesh, input: { text: words('u', 40) } });
    expect((await waitForRun(world.engine.db, urgent.runId, { timeoutMs: 20_000 })).status).toBe('done');
    const tags = agent.starts.map((s) => s.tag);
    const firstUrgent = tags.indexOf('u');
    const lastUrgent = tags.lastIndexOf('u');
    expect(tags.filter((t) => t === 'u')).toHaveLength(40);
    // Claimed in row order, the 40 urgent rows would start only after the 300 older backlog rows.
    const normalBefore = firstUrgent;
    expect(normalBefore).toBeLessThan(100);
    // While the urgent run went, normal work kept about its share (1 of 4 slots), never starved.
    const normalDuring = tags.slice(firstUrgent, lastUrgent + 1).filter((t) => t === 'b').length;
    const share = normalDuring / (normalDuring + 40);
    console.log(`in-process bus: urgent first start after ${normalBefore} backlog starts; normal share while urgent ran ${share.toFixed(2)} (reserved 0.25)`);
    expect(share).toBeGreaterThanOrEqual(0.12);
    expect(share).toBeLessThan(0.5);
    await expectExactDone(world.engine.db, urgent.runId);
    await waitForRun(world.engine.db, backlog.runId, { timeoutMs: 30_000 });
    await expectExactDone(world.engine.db, backlog.runId);
  }, 60_000);
});
