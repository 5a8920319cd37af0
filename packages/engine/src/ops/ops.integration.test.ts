import { sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { REDIS_URL, TEST_BUS, saveOrThrow, type TestWorld, useWorlds, expectExactDone } from '../../test/harness';
import { until } from '../../test/recorder';
import { failRun } from '../process/run-end';
import { ActionNotFoundError, ActionRefusedError } from './errors';
import { decideApproval } from '../approvals/decide';
import { eventsChannel, type EngineEvent } from '../events/outbox';
import { pumpEvents } from '../events/pump';
import { saveMesh } from '../meshes/save-mesh';
import { subscribeEvents } from '../events/subscribe';
import { reopenRun } from '../runs/reopen-run';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { rows } from '../kernel/sql';
import { detectStalls } from '../runtime/sweep';
import { actOnItem, listActionItems } from './action-items';
import { exceptionsFeed } from './exceptions-feed';
import { searchRuns } from './search-runs';

const mesh = (name: string, members: unknown[], channels: unknown[] = []) => ({ format: 'trellis.mesh/v1', name, members, channels });

const FAILING = mesh(
  'failing',
  [
    { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
    { id: 'cut', kind: 'workflow', label: 'Cut words', steps: [{ type: 'split', by: 'word', field: 'missing' }] },
  ],
  [{ from: 'head', to: 'cut' }],
);

const REVIEWED = mesh(
  'reviewed',
  [
    { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
    { id: 'review', kind: 'workflow', label: 'Review', approval: 'required', steps: [{ type: 'map', fields: { text: 'text' } }] },
    { id: 'out', kind: 'workflow', steps: [{ type: 'pass' }] },
  ],
  [{ from: 'head', to: 'review' }, { from: 'review', to: 'out' }],
);

async function addUser(world: TestWorld, id: string, name: string): Promise<void> {
  await world.engine.db.execute(sql`insert into users (id, email, name, password_hash) values (${id}, ${`${id}@t.local`}, ${name}, 'x')`);
}

function must<T>(x: T | null | undefined): T {
  if (x === null || x === undefined) throw new Error('expected a value');
  return x;
}

async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const STALL_MS = 200;

describe('ops: action items, approvals, feed, runs search, events', () => {
  const worlds = useWorlds();

  // About Redis pub/sub itself: the in-process bus has no Redis channel to subscribe to.
  it.skipIf(TEST_BUS === 'local')('a failing run opens one item per (mesh, cause) that lists its runs; the event reaches Redis subscribers', async () => {
    const w = await worlds.open({ backoffMs: 20, attempts: 1 });
    await addUser(w, 'u1', 'Ada Ops');
    const meshId = await saveOrThrow(w, FAILING);
    const sub = new Redis(REDIS_URL);
    const seen: EngineEvent[] = [];
    await sub.subscribe(eventsChannel(w.prefix));
    sub.on('message', (_ch: string, text: string) => seen.push(...(JSON.parse(text) as { events: EngineEvent[] }).events));
    try {
      // The orchestrator (started by startInProcess) pumps the outbox every tick.
      worlds.start(w, { pools: ['default'] });
      const a = await startRun(w.engine, { meshId, input: { text: 'one' } });
      const b = await startRun(w.engine, { meshId, input: { text: 'two' } });
      expect((await waitForRun(w.engine.db, a.runId, { timeoutMs: 30_000 })).status).toBe('failed');
      expect((await waitForRun(w.engine.db, b.runId, { timeoutMs: 30_000 })).status).toBe('failed');

      const items = await listActionItems(w.engine.db);
      expect(items).toHaveLength(1);
      const [item] = items;
      expect(item?.kind).toBe('failure');
      expect(item?.cause).toBe('step_code_failed');
      expect(item?.severity).toBe('project');
      expect(item?.runCount).toBe(2);
      expect(item?.runs.map((r) => r.id).sort()).toEqual([a.runId, b.runId].sort());
      expect(item?.sentence).toMatch(/^2 runs failed in step code at Cut words: /);
      expect(item?.history.map((h) => h.action)).toEqual(['opened']);

      await waitFor(() => (seen.some((e) => e.kind === 'run.failed' && e.runId === a.runId) ? true : undefined));
      expect(seen.some((e) => e.kind === 'item.changed' && e.itemId === item?.id)).toBe(true);

      // Acting: acknowledge, assign, resolve with a comment; each recorded with who and when.
      await actOnItem(w.engine.db, { itemId: must(item).id, userId: 'u1', action: 'acknowledge' });
      await actOnItem(w.engine.db, { itemId: must(item).id, userId: 'u1', action: 'assign', assignee: 'u1' });
      await expect(actOnItem(w.engine.db, { itemId: must(item).id, userId: 'u1', action: 'resolve', comment: '  ' })).rejects.toThrow(/comment/);
      await actOnItem(w.engine.db, { itemId: must(item).id, userId: 'u1', action: 'resolve', comment: 'field renamed' });
      const [after] = await listActionItems(w.engine.db, { state: 'resolved' });
      expect(after?.assignee).toEqual({ id: 'u1', name: 'Ada Ops' });
      expect(after?.history.map((h) => [h.action, h.actorName])).toEqual([
        ['opened', null], ['acknowledged', 'Ada Ops'], ['assigned', 'Ada Ops'], ['resolved', 'Ada Ops'],
      ]);
      // A failure after the group was resolved opens a new item.
      const c = await startRun(w.engine, { meshId, input: { text: 'three' } });
      await waitForRun(w.engine.db, c.runId, { timeoutMs: 30_000 });
      const open = await listActionItems(w.engine.db);
      expect(open.map((i) => i.runs.map((r) => r.id))).toEqual([[c.runId]]);
    } finally {
      sub.disconnect();
    }
  });

  it('an approval parks the output with no worker waiting; approving continues the run to done with the parked output', async () => {
    // Checked every 50 ms; the stall limit drops to 200 ms once the output is parked (before, a
    // loaded machine may legitimately take that long between two steps).
    const w = await worlds.open({ tickMs: 50 });
    await addUser(w, 'u2', 'Bo Reviewer');
    const meshId = await saveOrThrow(w, REVIEWED);
    worlds.start(w, { pools: ['default'] });
    const { runId } = await startRun(w.engine, { meshId, input: { text: 'keep me' } });
    const item = await waitFor(async () => (await listActionItems(w.engine.db, { kind: 'approval' }))[0]);
    expect(item.approval?.status).toBe('pending');
    expect(item.approval?.preview).toEqual([{ text: 'keep me' }]);
    const parked = await rows<{ member: string; status: string }>(w.engine.db, sql`select member, status from messages where run_id = ${runId} order by depth`);
    expect(parked).toEqual([{ member: 'head', status: 'done' }, { member: 'review', status: 'parked' }]);
    w.engine.config.stallAfterMs = STALL_MS;
    // Parked work is not a stall, and the run does not end while its output waits: once nothing has
    // moved for four stall limits (read from the database clock), the orchestrator has checked
    // several times, and a check made here flags nothing either.
    await until(async () => {
      const [age] = await rows<{ ms: number }>(w.engine.db, sql`select (extract(epoch from now() - moved_at) * 1000)::float8 as ms from runs where id = ${runId}`);
      return (age?.ms ?? 0) > 4 * STALL_MS ? true : undefined;
    }, 'the parked run to sit still for four stall limits');
    expect(await detectStalls(w.engine)).toEqual([]);
    expect((await waitForRun(w.engine.db, runId, { timeoutMs: 10 })).status).toBe('running');

    const decided = await decideApproval(w.engine, { approvalId: must(item.approval).id, decision: 'approve', userId: 'u2', comment: 'looks right' });
    expect(decided).toMatchObject({ runId, status: 'approved', published: 1 });
    const view = await waitForRun(w.engine.db, runId, { timeoutMs: 30_000 });
    await expectExactDone(w.engine.db, view.id);
    expect(view.output).toEqual({ text: 'keep me' });
    const [rec] = await rows<{ decided_by: string; status: string; decided_at: Date | null }>(w.engine.db, sql`select decided_by, status, decided_at from approvals`);
    expect(rec?.decided_by).toBe('u2');
    expect(rec?.decided_at).not.toBeNull();
    await expect(decideApproval(w.engine, { approvalId: must(item.approval).id, decision: 'approve', userId: 'u2' })).rejects.toThrow(/already approved/);
    const [resolved] = await listActionItems(w.engine.db, { state: 'resolved', kind: 'approval' });
    expect(resolved?.history.map((h) => [h.action, h.actorName])).toEqual([['opened', null], ['approved', 'Bo Reviewer']]);
  });

  it('refuses a decision by an unknown user, and an approval on a run that has ended; the parked output stays unpublished', async () => {
    const w = await worlds.open();
    await addUser(w, 'u6', 'Fay Approver');
    const meshId = await saveOrThrow(w, REVIEWED);
    worlds.start(w, { pools: ['default'] });
    const { runId } = await startRun(w.engine, { meshId, input: { text: 'late' } });
    const item = await waitFor(async () => (await listActionItems(w.engine.db, { kind: 'approval' }))[0]);
    const approvalId = must(item.approval).id;
    const unknown = decideApproval(w.engine, { approvalId, decision: 'approve', userId: 'nobody' });
    await expect(unknown).rejects.toBeInstanceOf(ActionNotFoundError);
    await expect(unknown).rejects.toThrow(/user nobody/);
    expect(await failRun(w.engine.db, runId, { cause: 'step_code_failed', member: 'head', detail: 'ended by the test' })).toBe(true);
    const late = decideApproval(w.engine, { approvalId, decision: 'approve', userId: 'u6' });
    await expect(late).rejects.toBeInstanceOf(ActionRefusedError);
    await expect(late).rejects.toThrow(`run ${runId} has ended (failed); its parked output can no longer be published`);
    const [approval] = await rows<{ status: string; decided_by: string | null }>(w.engine.db, sql`select status, decided_by from approvals`);
    expect(approval).toEqual({ status: 'pending', decided_by: null });
    const msgs = await rows<{ member: string; status: string }>(w.engine.db, sql`select member, status from messages where run_id = ${runId} order by depth`);
    expect(msgs).toEqual([{ member: 'head', status: 'done' }, { member: 'review', status: 'parked' }]);
  });

  it('rejecting fails the run with input_rejected, naming the member, the person and the comment', async () => {
    const w = await worlds.open();
    await addUser(w, 'u3', 'Cy Checker');
    const meshId = await saveOrThrow(w, REVIEWED);
    worlds.start(w, { pools: ['default'] });
    const { runId } = await startRun(w.engine, { meshId, input: { text: 'wrong' } });
    const item = await waitFor(async () => (await listActionItems(w.engine.db, { kind: 'approval' }))[0]);
    await expect(decideApproval(w.engine, { approvalId: must(item.approval).id, decision: 'reject', userId: 'u3' })).rejects.toThrow(/comment/);
    await decideApproval(w.engine, { approvalId: must(item.approval).id, decision: 'reject', userId: 'u3', comment: 'total is off' });
    const view = await waitForRun(w.engine.db, runId, { timeoutMs: 5_000 });
    expect(view.status).toBe('failed');
    expect(view.cause).toBe('input_rejected');
    expect(view.causeMember).toBe('review');
    expect(view.causeMessage).toBe('The run had input rejected at Review: Cy Checker rejected its output: total is off.');
    expect(view.counts.deadLettered).toBe(1);
    const failures = await listActionItems(w.engine.db, { kind: 'failure' });
    expect(failures.map((i) => i.cause)).toEqual(['input_rejected']);
  });

  it('a run re-opened after its approval was rejected parks again: a new pending approval and an open item; approving finishes it', async () => {
    const w = await worlds.open();
    await addUser(w, 'u4', 'Di Decider');
    const meshId = await saveOrThrow(w, mesh('gated', [{ id: 'head', kind: 'workflow', head: true, approval: 'required', steps: [{ type: 'pass' }] }]));
    worlds.start(w, { pools: ['default'] });
    const { runId } = await startRun(w.engine, { meshId, input: { text: 'again' } });
    const first = await waitFor(async () => (await listActionItems(w.engine.db, { kind: 'approval' }))[0]);
    await decideApproval(w.engine, { approvalId: must(first.approval).id, decision: 'reject', userId: 'u4', comment: 'not yet' });
    expect((await waitForRun(w.engine.db, runId, { timeoutMs: 5_000 })).cause).toBe('input_rejected');

    await reopenRun(w.engine, { runId, version: 'pinned' });
    const again = await waitFor(async () => {
      const [i] = await listActionItems(w.engine.db, { kind: 'approval' });
      return i?.approval?.status === 'pending' ? i : undefined;
    });
    expect(again.state).toBe('open');
    expect(again.approval?.runId).toBe(runId);
    const [msg] = await rows<{ status: string }>(w.engine.db, sql`select status from messages where run_id = ${runId}`);
    expect(msg?.status).toBe('parked');
    // The rejection stays on record: who, when and why.
    const rejected = again.history.find((h) => h.action === 'rejected');
    expect(rejected?.actorName).toBe('Di Decider');
    const reopened = again.history.find((h) => h.action === 'reopened');
    expect(reopened?.detail).toMatchObject({ runId, previous: { status: 'rejected', decidedBy: 'u4', comment: 'not yet' } });

    await decideApproval(w.engine, { approvalId: must(again.approval).id, decision: 'approve', userId: 'u4' });
    const view = await waitForRun(w.engine.db, runId, { timeoutMs: 30_000 });
    await expectExactDone(w.engine.db, view.id);
    expect(view.output).toEqual({ text: 'again' });
    const [resolved] = await listActionItems(w.engine.db, { state: 'resolved', kind: 'approval' });
    expect(resolved?.history.map((h) => [h.action, h.actorName])).toEqual([
      ['opened', null], ['rejected', 'Di Decider'], ['reopened', null], ['approved', 'Di Decider'],
    ]);
  });

  it('a run re-opened after an approved output failed further on does not ask again: the approved step stays done', async () => {
    const w = await worlds.open({ attempts: 1 });
    await addUser(w, 'u5', 'Ed Editor');
    const gated = (field: string) =>
      mesh('gated-split', [
        { id: 'head', kind: 'workflow', head: true, approval: 'required', steps: [{ type: 'pass' }] },
        { id: 'cut', kind: 'workflow', steps: [{ type: 'split', by: 'word', field }] },
      ], [{ from: 'head', to: 'cut' }]);
    const meshId = await saveOrThrow(w, gated('missing'));
    worlds.start(w, { pools: ['default'] });
    const { runId } = await startRun(w.engine, { meshId, input: { text: 'a b' } });
    const item = await waitFor(async () => (await listActionItems(w.engine.db, { kind: 'approval' }))[0]);
    await decideApproval(w.engine, { approvalId: must(item.approval).id, decision: 'approve', userId: 'u5' });
    expect((await waitForRun(w.engine.db, runId, { timeoutMs: 30_000 })).status).toBe('failed');
    expect((await saveMesh(w.engine.db, { meshId, definition: gated('text'), baseVersion: 1 })).ok).toBe(true);
    await reopenRun(w.engine, { runId, version: 'latest' });
    await waitForRun(w.engine.db, runId, { timeoutMs: 30_000 });
    await expectExactDone(w.engine.db, runId);
    const approvals = await rows<{ status: string; decided_by: string }>(w.engine.db, sql`select status, decided_by from approvals`);
    expect(approvals).toEqual([{ status: 'approved', decided_by: 'u5' }]);
    expect(await listActionItems(w.engine.db, { kind: 'approval' })).toEqual([]);
  });

  it('the stall detector puts stalled runs in their mesh\'s `stalled` item', async () => {
    const w = await worlds.open({ stallAfterMs: 300 });
    const meshId = await saveOrThrow(w, FAILING);
    // No worker: nothing moves.
    const { runId } = await startRun(w.engine, { meshId, input: { text: 'idle' } });
    await new Promise((r) => setTimeout(r, 800));
    expect(await detectStalls(w.engine)).toEqual([runId]);
    const items = await listActionItems(w.engine.db);
    expect(items.map((i) => [i.cause, i.severity, i.runs.map((r) => [r.id, r.status])])).toEqual([['stalled', 'capacity', [[runId, 'stalled']]]]);
    expect(items[0]?.sentence).toMatch(/^1 run stalled: nothing moved for 0 s/);
  });

  it('a refused input (a run that fails before it starts) opens an input_rejected item too', async () => {
    const w = await worlds.open();
    const meshId = await saveOrThrow(w, FAILING);
    const refused = await startRun(w.engine, { meshId, input: { name: 'bad.bin', bytes: new Uint8Array([0x61, 0xff, 0xfe]) } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Error);
    const items = await listActionItems(w.engine.db);
    expect(items.map((i) => [i.cause, i.runCount, i.runs[0]?.inputName])).toEqual([['input_rejected', 1, 'bad.bin']]);
  });

  it('groups seeded failures per mesh and cause in one query: counts, first/last seen, samples, hourly trend', async () => {
    const w = await worlds.open();
    const base = Date.parse('2026-03-02T10:00:00Z');
    const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();
    const seed: [string, string, string, string | null, number][] = [
      // id, mesh, status, cause, minutes after 10:00
      ['r1', 'm1', 'failed', 'timed_out', 5],
      ['r2', 'm1', 'failed', 'timed_out', 65],
      ['r3', 'm1', 'failed', 'timed_out', 70],
      ['r4', 'm1', 'failed', 'timed_out', 75],
      ['r5', 'm1', 'failed', 'message_lost', 30],
      ['r6', 'm2', 'stalled', 'stalled', 130],
      ['r7', 'm2', 'done', null, 10],
      ['r8', 'm1', 'failed', 'timed_out', -30], // before the window
    ];
    for (const [id, m, status, cause, min] of seed) {
      await w.engine.db.execute(
        sql`insert into runs (id, mesh_id, mesh_name, mesh_version, status, cause, cause_member, cause_message, input, created_at, started_at, ended_at, moved_at)
            values (${id}, ${m}, ${`mesh ${m}`}, 1, ${status}, ${cause}, 'records', ${cause ? `sentence ${id}` : null}, '{}'::jsonb,
                    ${at(min - 1)}::timestamptz, ${at(min - 1)}::timestamptz, ${status === 'stalled' ? null : at(min)}::timestamptz, ${at(min)}::timestamptz)`,
      );
    }
    const feed = await exceptionsFeed(w.engine.db, { from: new Date(base), to: new Date(base + 3 * 3_600_000) });
    expect(feed.bucket).toBe('hour');
    expect(feed.buckets.map((b) => b.toISOString())).toEqual([at(0), at(60), at(120)].map((s) => new Date(s).toISOString()));
    expect(feed.groups.map((g) => [g.meshId, g.cause, g.severity, g.count, g.trend])).toEqual([
      ['m1', 'message_lost', 'critical', 1, [1, 0, 0]],
      ['m1', 'timed_out', 'capacity', 4, [1, 3, 0]],
      ['m2', 'stalled', 'capacity', 1, [0, 0, 1]],
    ]);
    const timed = must(feed.groups[1]);
    expect(timed.samples.map((s) => s.id)).toEqual(['r4', 'r3', 'r2']);
    expect(timed.firstSeen.toISOString()).toBe(new Date(at(5)).toISOString());
    expect(timed.lastSeen.toISOString()).toBe(new Date(at(75)).toISOString());
    expect(timed.sentence).toBe('4 runs ran out of time at records.');

    // The Runs tab over the same rows: severity, search by id prefix, sort by duration.
    const capacity = await searchRuns(w.engine.db, { severity: 'capacity' });
    expect(capacity.items.map((r) => r.id).sort()).toEqual(['r1', 'r2', 'r3', 'r4', 'r6', 'r8']);
    expect((await searchRuns(w.engine.db, { search: 'r5' })).items.map((r) => r.id)).toEqual(['r5']);
    const page = await searchRuns(w.engine.db, { meshId: 'm1', sort: 'started', direction: 'asc', limit: 2, offset: 1 });
    expect(page.total).toBe(6);
    expect(page.items.map((r) => r.id)).toEqual(['r1', 'r5']);
  });
});

describe('event pump', () => {
  const worlds = useWorlds();
  // Subscribes to the Redis channel itself; on the in-process bus the pump's subscribers are the
  // engine's own (subscribeEvents), which the approval and failure tests above depend on.
  it.skipIf(TEST_BUS === 'local')('publishes and deletes outbox rows; nothing is left behind', async () => {
    const w = await worlds.open();
    await w.engine.db.execute(sql`insert into engine_events (kind, run_id) values ('run.status', 'x1'), ('run.failed', 'x2')`);
    const sub = new Redis(REDIS_URL);
    const got: EngineEvent[] = [];
    await sub.subscribe(eventsChannel(w.prefix));
    sub.on('message', (_c: string, t: string) => got.push(...(JSON.parse(t) as { events: EngineEvent[] }).events));
    try {
      expect(await pumpEvents(w.engine)).toBe(2);
      await waitFor(() => (got.length >= 3 ? true : undefined), 5000);
      expect(got.map((e) => e.kind)).toEqual(['run.status', 'run.failed', 'counts.moved']);
      expect(await rows(w.engine.db, sql`select 1 from engine_events`)).toHaveLength(0);
      expect(await pumpEvents(w.engine)).toBe(0);
      // The web server's hub (one subscriber connection per engine) hands batches to every listener.
      const heard: EngineEvent[][] = [];
      const stop = await subscribeEvents(w.engine, (events) => heard.push(events));
      await w.engine.db.execute(sql`insert into engine_events (kind, item_id) values ('item.changed', 'i9')`);
      expect(await pumpEvents(w.engine)).toBe(1);
      await waitFor(() => (heard.length > 0 ? true : undefined), 5000);
      expect(heard[0]?.map((e) => [e.kind, e.itemId ?? null])).toEqual([['item.changed', 'i9'], ['counts.moved', null]]);
      await stop();
    } finally {
      sub.disconnect();
    }
  });
});
