import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { exactness, saveOrThrow, useWorlds } from '../../test/harness';
import { listMessages } from '../runs/list-messages';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { rows } from '../kernel/sql';

// The repro of a false success: a condition between the split and its combine drops one word.
const FILTERED = {
  format: 'trellis.mesh/v1',
  name: 'filtered',
  members: [
    { id: 'split', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'word' }] },
    { id: 'keep', kind: 'workflow', steps: [{ type: 'pass' }] },
    { id: 'join', kind: 'combine', merge: { type: 'concat', field: 'text' } },
    { id: 'after', kind: 'workflow', steps: [{ type: 'pass' }] },
  ],
  channels: [
    { from: 'split', to: 'keep', when: "text != 'b '" },
    { from: 'keep', to: 'join' },
    { from: 'join', to: 'after' },
  ],
};

// Two routes to two combines: a part taking one of them is skipped at the other only.
const FORKED = {
  format: 'trellis.mesh/v1',
  name: 'forked',
  members: [
    { id: 'split', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'word' }] },
    { id: 'vowels', kind: 'combine', merge: { type: 'concat', field: 'text' } },
    { id: 'others', kind: 'combine', merge: { type: 'concat', field: 'text' } },
  ],
  channels: [
    { from: 'split', to: 'vowels', when: "text == 'a ' or text == 'e '" },
    { from: 'split', to: 'others', when: "text != 'a ' and text != 'e '" },
  ],
};

// Pages of lines: a whole page's lines filtered out still lets the outer join fire.
const NESTED = {
  format: 'trellis.mesh/v1',
  name: 'nested',
  members: [
    { id: 'pages', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'page' }] },
    { id: 'lines', kind: 'workflow', steps: [{ type: 'split', by: 'line' }] },
    { id: 'line-join', kind: 'combine', merge: { type: 'concat', field: 'text' } },
    { id: 'page-join', kind: 'combine', merge: { type: 'concat', field: 'text' } },
  ],
  channels: [
    { from: 'pages', to: 'lines' },
    { from: 'lines', to: 'line-join', when: "text != 'drop\n'" },
    { from: 'line-join', to: 'page-join', when: "text != ''" },
  ],
};

describe('joins account for parts that routing drops', () => {
  const worlds = useWorlds();

  it('ends the repro done with the parts that arrived, and the trail names the dropped one', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, FILTERED);
    worlds.start(world);
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'a b c ' } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    expect(view.status).toBe('done');
    expect(view.output).toEqual({ text: 'a c ' });
    expect(view.counts.filtered).toBe(1);
    expect(view.counts.published).toBe(view.counts.done);
    const filtered = await listMessages(world.engine.db, { runId, status: 'filtered' });
    expect(filtered.items).toHaveLength(1);
    expect(filtered.items[0]).toMatchObject({ member: 'split', seq: 1, payload: { text: 'b ' } });
    expect(filtered.items[0]?.error).toContain("split->keep (text != 'b ')");
    const [join] = await rows<{ expected: number; received: number; skipped: number; fired: boolean }>(
      world.engine.db,
      sql`select expected, received, skipped, fired_at is not null as fired from joins where run_id = ${runId}`,
    );
    expect(join).toEqual({ expected: 3, received: 3, skipped: 1, fired: true });
    const ex = await exactness(world.engine.db, runId);
    expect(ex).toMatchObject({ unfiredJoins: 0, duplicateJoins: 0, notDone: 0 });
  });

  it('fires a join whose every part was filtered once, with the empty set', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, FILTERED);
    worlds.start(world);
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'b b ' } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    expect(view.status).toBe('done');
    expect(view.output).toEqual({ text: '' });
    expect(view.counts.filtered).toBe(2);
    expect(view.memberCounts.after?.done).toBe(1);
  });

  it('counts a part as skipped only at the combine its route does not reach', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, FORKED);
    worlds.start(world);
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'a b e d ' } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    expect(view.status).toBe('done');
    const outputs = await rows<{ output: unknown }>(world.engine.db, sql`select output from messages where run_id = ${runId} and output is not null order by output->>'text'`);
    expect(outputs.map((o) => o.output)).toEqual([{ text: 'a e ' }, { text: 'b d ' }]);
    const joins = await rows<{ member: string; received: number; skipped: number }>(
      world.engine.db,
      sql`select member, received, skipped from joins where run_id = ${runId} order by member`,
    );
    expect(joins).toEqual([
      { member: 'others', received: 4, skipped: 2 },
      { member: 'vowels', received: 4, skipped: 2 },
    ]);
    expect(view.counts.filtered).toBe(4);
  });

  it('lets an outer join fire when an inner join is itself filtered out', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, NESTED);
    worlds.start(world);
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'one\ntwo\n\fdrop\n' } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    expect(view.status).toBe('done');
    // Page two had only the dropped line: its line join fired empty, and that empty text was filtered too.
    expect(view.output).toEqual({ text: 'one\ntwo\n\f' });
    expect((await exactness(world.engine.db, runId)).unfiredJoins).toBe(0);
  });

  it('fails a run whose join can never complete with outcome_unreadable, never done', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, FILTERED);
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'a c ' } });
    // Behind the engine's back: a join that waits for a part nothing will ever send.
    await world.engine.db.execute(sql`insert into joins (run_id, member, key, expected, received) values (${runId}, 'join', 'never', 2, 1)`);
    worlds.start(world);
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    expect(view.status).toBe('failed');
    expect(view.cause).toBe('outcome_unreadable');
    expect(view.causeMember).toBe('join');
    expect(view.causeMessage).toContain('received 1 of 2 parts');
  });
});
