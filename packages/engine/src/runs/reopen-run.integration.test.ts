// Re-open from the failed step, against real Postgres and Redis (test/harness.ts).
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { exactness, saveOrThrow, WORD_SPLIT, type TestWorld, useWorlds, expectExactDone } from '../../test/harness';
import { saveMesh } from '../meshes/save-mesh';
import { startInProcess } from '../runtime/in-process';
import { startOrchestrator } from '../runtime/orchestrator';
import { rows } from '../kernel/sql';
import { listRunAttempts } from './list-run-attempts';
import { previewReopen, reopenRun, reopenRuns, ReopenRefusedError } from './reopen-run';
import { startRun } from './start-run';
import { waitForRun } from './wait-run';

const base = JSON.parse(WORD_SPLIT) as { members: Record<string, unknown>[]; channels: Record<string, unknown>[] } & Record<string, unknown>;

/**
 * Word-split where the line 'beta two' goes through `odd` instead of `words`. Version 1's `odd`
 * reads a field that is not there, so it fails; version 2 splits `text` like `words` does.
 */
function splitMesh(oddField: string): unknown {
  return {
    ...base,
    members: [...base.members, { id: 'odd', kind: 'workflow', label: 'Odd line', steps: [{ type: 'split', by: 'word', field: oddField }] }],
    channels: [
      { from: 'pages', to: 'lines' },
      { from: 'lines', to: 'words', when: "text != 'beta two'" },
      { from: 'lines', to: 'odd', when: "text == 'beta two'" },
      { from: 'words', to: 'join-words' },
      { from: 'odd', to: 'join-words' },
      { from: 'join-words', to: 'join-lines' },
      { from: 'join-lines', to: 'join-pages' },
    ],
  };
}

const INPUT = 'alpha one  two\n\tgamma\r\nthree four five\fpage two\nbeta two';

interface Snap {
  id: string;
  member: string;
  status: string;
  attempts: number;
  finished_at: string | null;
}

async function snapshot(world: TestWorld, runId: string): Promise<Snap[]> {
  return rows<Snap>(
    world.engine.db,
    sql`select id, member, status, attempts, finished_at::text as finished_at from messages where run_id = ${runId} order by id`,
  );
}

describe('re-open from the failed step', () => {
  const worlds = useWorlds();

  it('re-opens a failed run on the latest version: done, byte-exact, nothing before the failed step runs again', async () => {
    const world = await worlds.open({ attempts: 1 });
    const meshId = await saveOrThrow(world, splitMesh('missing'));
    worlds.start(world, { pools: ['default'] });
    const { runId } = await startRun(world.engine, { meshId, input: { text: INPUT } });
    const failed = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    expect(failed).toMatchObject({ status: 'failed', cause: 'step_code_failed', causeMember: 'odd', meshVersion: 1 });
    // Let the run settle (open messages of the ended run are cancelled), then keep the picture.
    await new Promise((r) => setTimeout(r, 500));
    const before = await snapshot(world, runId);
    const doneBefore = before.filter((m) => m.status === 'done');
    expect(doneBefore.map((m) => m.member)).toEqual(expect.arrayContaining(['pages', 'lines']));
    // Parts that were already in: the other lines' words reached join-words / join-lines.
    const [parts] = await rows<{ n: number }>(world.engine.db, sql`select count(*)::int as n from join_parts where run_id = ${runId}`);

    // The fix is saved as version 2; the pinned version still has the broken member.
    const fixed = await saveMesh(world.engine.db, { meshId, definition: splitMesh('text'), baseVersion: 1 });
    expect(fixed).toMatchObject({ ok: true, version: 2 });
    const preview = await previewReopen(world.engine.db, { runIds: [runId], version: 'latest' });
    expect(preview).toMatchObject({ runs: 1, refused: [] });
    expect(preview.items[0]).toMatchObject({ fromVersion: 1, toVersion: 2, members: expect.arrayContaining(['odd']) as unknown });
    expect(preview.items[0]?.members[0]).toBe('odd');
    expect(preview.summary).toBe("Re-open 1 run from member odd on the latest saved version (v2).");

    const result = await reopenRun(world.engine, { runId, version: 'latest', userId: 'u1' });
    expect(result).toMatchObject({ attempt: 2, toVersion: 2 });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    expect(view).toMatchObject({ status: 'done', cause: null, meshVersion: 2 });
    expect((view.output as { text: string }).text).toBe(INPUT);

    // Nothing done before the re-open ran again: same rows, same attempts, same finish time.
    const after = new Map((await snapshot(world, runId)).map((m) => [m.id, m]));
    for (const m of doneBefore) expect(after.get(m.id)).toEqual(m);
    const [partsAfter] = await rows<{ n: number }>(world.engine.db, sql`select count(*)::int as n from join_parts where run_id = ${runId}`);
    expect(partsAfter?.n).toBeGreaterThan(parts?.n ?? 0);
    const exact = await exactness(world.engine.db, runId);
    expect(exact).toMatchObject({ notDone: 0, duplicateJoins: 0, unfiredJoins: 0 });
    const odd = [...after.values()].filter((m) => m.member === 'odd');
    expect(odd).toHaveLength(1);
    // Deliveries count per attempt of the run: the re-opened delivery is its attempt's first.
    expect(odd[0]?.attempts).toBe(1);

    const history = await listRunAttempts(world.engine.db, runId);
    expect(history?.map((a) => [a.attempt, a.versionChoice, a.meshVersion, a.outcome, a.outcomeCause])).toEqual([
      [1, 'first', 1, 'failed', 'step_code_failed'],
      [2, 'latest', 2, 'done', null],
    ]);
    expect(history?.[1]?.members[0]).toBe('odd');

    // A done run is refused, with the reason.
    await expect(reopenRun(world.engine, { runId, version: 'pinned' })).rejects.toThrow(ReopenRefusedError);
  });

  it('refuses the latest version when the failed member is gone from it, naming the member', async () => {
    const world = await worlds.open({ attempts: 1 });
    const meshId = await saveOrThrow(world, splitMesh('missing'));
    worlds.start(world, { pools: ['default'] });
    const { runId } = await startRun(world.engine, { meshId, input: { text: INPUT } });
    expect((await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 })).status).toBe('failed');
    await saveMesh(world.engine.db, { meshId, definition: WORD_SPLIT, baseVersion: 1 });
    const preview = await previewReopen(world.engine.db, { runIds: [runId], version: 'latest' });
    expect(preview.runs).toBe(0);
    expect(preview.refused[0]?.reason).toMatch(/member odd no longer exists in version 2 of mesh word-split/);
    const err = await reopenRun(world.engine, { runId, version: 'latest' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReopenRefusedError);
    const [run] = await rows<{ status: string; n: number }>(
      world.engine.db,
      sql`select status, (select count(*)::int from run_attempts where run_id = ${runId}) as n from runs where id = ${runId}`,
    );
    expect(run).toEqual({ status: 'failed', n: 0 });
  });

  it('re-opens runs whose messages were lost on their pinned version (bulk), once the failure has passed', async () => {
    const world = await worlds.open({ relayAfterMs: 200, tickMs: 50, maxRequeues: 0 });
    const def = { ...base, members: base.members.map((m) => (m.id === 'words' ? { ...m, pool: 'aux' } : m)) };
    const meshId = await saveOrThrow(world, def);
    // No worker serves `aux` yet: the words wait there.
    worlds.start(world, { pools: ['default'] });
    const texts = ['one two\nthree', 'four\nfive six seven\n'];
    const ids: string[] = [];
    for (const text of texts) ids.push((await startRun(world.engine, { meshId, input: { text } })).runId);
    for (;;) {
      const [c] = await rows<{ n: number }>(world.engine.db, sql`select count(*)::int as n from messages where member = 'words'`);
      if ((c?.n ?? 0) >= 4) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    // Redis loses the aux queue (a flush, an eviction): the relay declares the messages lost.
    await world.engine.queue('aux').obliterate({ force: true });
    for (const id of ids) expect(await waitForRun(world.engine.db, id, { timeoutMs: 20_000 })).toMatchObject({ status: 'failed', cause: 'message_lost', causeMember: 'words' });
    const before = await snapshot(world, ids[0] ?? '');

    const preview = await previewReopen(world.engine.db, { runIds: ids, version: 'pinned' });
    expect(preview).toMatchObject({ runs: 2, members: [{ member: 'words', runs: 2, failedIn: 2 }] });
    expect(preview.summary).toBe("Re-open 2 runs from member words on each run's own version (v1).");
    const aux = startInProcess(world.engine, { pools: ['aux'] });
    try {
      const done = await reopenRuns(world.engine, { runIds: ids, version: 'pinned' });
      expect(done.reopened.map((r) => r.attempt)).toEqual([2, 2]);
      for (const [i, id] of ids.entries()) {
        const view = await waitForRun(world.engine.db, id, { timeoutMs: 30_000 });
        expect(view).toMatchObject({ status: 'done', meshVersion: 1 });
        expect((view.output as { text: string }).text).toBe(texts[i]);
      }
    } finally {
      await aux.close();
    }
    const after = new Map((await snapshot(world, ids[0] ?? '')).map((m) => [m.id, m]));
    for (const m of before.filter((b) => b.status === 'done')) expect(after.get(m.id)).toEqual(m);
    const history = await listRunAttempts(world.engine.db, ids[0] ?? '');
    expect(history?.map((a) => [a.versionChoice, a.meshVersion, a.outcome])).toEqual([
      ['first', 1, 'failed'],
      ['pinned', 1, 'done'],
    ]);
  });

  it('re-opens a stalled run whose job Redis no longer has', async () => {
    // The relay is held back (relayAfterMs 10 min), so only the re-open can put the job back.
    const world = await worlds.open({ stallAfterMs: 200, tickMs: 50, relayAfterMs: 600_000 });
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const orchestrator = startOrchestrator(world.engine);
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'a b\nc' } });
    const stalled = await waitForRun(world.engine.db, runId, { timeoutMs: 10_000 });
    await orchestrator.close();
    expect(stalled.status).toBe('stalled');
    await world.engine.queue('default').obliterate({ force: true });
    const reopened = await reopenRun(world.engine, { runId, version: 'pinned' });
    expect(reopened).toMatchObject({ status: 'stalled', members: ['pages'], messages: 1 });
    worlds.start(world, { pools: ['default'] });
    // With a 200 ms stall limit a busy machine may flag it stalled again on the way; it still ends done.
    let view = await waitForRun(world.engine.db, runId, { timeoutMs: 20_000 });
    for (const until = Date.now() + 20_000; view.status === 'stalled' && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 100));
      view = await waitForRun(world.engine.db, runId, { timeoutMs: 1_000 });
    }
    await expectExactDone(world.engine.db, view.id);
    expect((view.output as { text: string }).text).toBe('a b\nc');
  });
});
