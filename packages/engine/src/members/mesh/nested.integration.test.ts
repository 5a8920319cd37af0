import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { saveOrThrow, useWorlds } from '../../../test/harness';
import { startRun } from '../../runs/start-run';
import { waitForRun } from '../../runs/wait-run';
import { rows } from '../../kernel/sql';
import { listMessages } from '../../runs/list-messages';
import { reopenRun } from '../../runs/reopen-run';
import { NESTING_LIMIT } from './child';

// The child splits words and joins them back upper-cased per word count; the parent feeds it a
// sentence and keeps what the child answered.
const WORDS = {
  format: 'trellis.mesh/v1',
  name: 'words',
  members: [
    { id: 'split', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'word', field: 'text' }] },
    { id: 'tag', kind: 'agent', model: 'demo' },
    { id: 'join', kind: 'combine', merge: { type: 'collect', into: 'words' } },
  ],
  channels: [
    { from: 'split', to: 'tag' },
    { from: 'tag', to: 'join' },
  ],
};

const PARENT = {
  format: 'trellis.mesh/v1',
  name: 'parent',
  members: [
    { id: 'intake', kind: 'workflow', head: true, steps: [{ type: 'map', fields: { text: 'sentence' } }] },
    { id: 'nested', kind: 'mesh', mesh: 'words', label: 'Word split' },
    { id: 'count', kind: 'workflow', steps: [{ type: 'map', fields: { words: 'words' } }] },
  ],
  channels: [
    { from: 'intake', to: 'nested' },
    { from: 'nested', to: 'count' },
  ],
};

// The child fails: its split is fed a field that is not text.
const BROKEN_CHILD = {
  format: 'trellis.mesh/v1',
  name: 'broken',
  members: [{ id: 'cut', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'word', field: 'missing' }] }],
  channels: [],
};

const PARENT_OF_BROKEN = {
  format: 'trellis.mesh/v1',
  name: 'parent-of-broken',
  members: [{ id: 'nested', kind: 'mesh', mesh: 'broken', head: true, label: 'Broken step' }],
  channels: [],
};

/** `level0` nests `level1` … nests `level<n>`, whose one member passes the payload on. */
function chain(n: number): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      format: 'trellis.mesh/v1',
      name: `level${i}`,
      members: [{ id: 'down', kind: 'mesh', mesh: `level${i + 1}`, head: true }],
      channels: [],
    });
  }
  out.push({ format: 'trellis.mesh/v1', name: `level${n}`, members: [{ id: 'leaf', kind: 'workflow', head: true, steps: [{ type: 'pass' }] }], channels: [] });
  return out.reverse();
}

describe('nested meshes', () => {
  const worlds = useWorlds();

  it("runs the child on the parent's message and continues the parent with the child's output", async () => {
    const world = await worlds.open();
    await saveOrThrow(world, WORDS);
    const parentId = await saveOrThrow(world, PARENT);
    const runtime = worlds.start(world, { pools: ['default'], concurrency: 1 });
    try {
      const { runId } = await startRun(world.engine, { meshId: parentId, input: { payload: { sentence: 'two words' } } });
      const view = await waitForRun(world.engine.db, runId, { timeoutMs: 20_000 });
      expect(view.status).toBe('done');
      expect(view.output).toEqual({ words: [{ text: 'two ', agent: 'tag' }, { text: 'words', agent: 'tag' }] });
      const [child] = await rows<{ id: string; status: string; parent_message_id: string; input: unknown; mesh_name: string }>(
        world.engine.db,
        sql`select id, status, parent_message_id, input, mesh_name from runs where parent_run_id = ${runId}`,
      );
      expect(child?.status).toBe('done');
      expect(child?.mesh_name).toBe('words');
      expect(child?.input).toEqual({ text: 'two words' });
      const [parked] = await rows<{ member: string; status: string }>(
        world.engine.db,
        sql`select member, status from messages where id = ${child?.parent_message_id ?? ''}`,
      );
      expect(parked).toEqual({ member: 'nested', status: 'done' });
      // The trail links the nested member's message to its child run.
      const trail = await listMessages(world.engine.db, { runId, member: 'nested' });
      expect(trail.items.map((m) => m.childRunId)).toEqual([child?.id]);
    } finally {
      await runtime.close();
    }
  });

  it('works the same on the embedded database', async () => {
    const world = await worlds.open({}, 'pglite');
    await saveOrThrow(world, WORDS);
    const parentId = await saveOrThrow(world, PARENT);
    const runtime = worlds.start(world, { pools: ['default'], concurrency: 4 });
    try {
      const { runId } = await startRun(world.engine, { meshId: parentId, input: { payload: { sentence: 'a b c' } } });
      const view = await waitForRun(world.engine.db, runId, { timeoutMs: 20_000 });
      expect(view.status).toBe('done');
      expect(view.output).toEqual({ words: ['a ', 'b ', 'c'].map((text) => ({ text, agent: 'tag' })) });
    } finally {
      await runtime.close();
    }
  });

  it("fails the parent with the child's cause and names the child run", async () => {
    const world = await worlds.open({ attempts: 1 });
    await saveOrThrow(world, BROKEN_CHILD);
    const parentId = await saveOrThrow(world, PARENT_OF_BROKEN);
    const runtime = worlds.start(world, { pools: ['default'] });
    try {
      const { runId } = await startRun(world.engine, { meshId: parentId, input: { payload: { text: 'x' } } });
      const view = await waitForRun(world.engine.db, runId, { timeoutMs: 20_000 });
      const [child] = await rows<{ id: string; status: string; cause: string }>(
        world.engine.db,
        sql`select id, status, cause from runs where parent_run_id = ${runId}`,
      );
      expect(child?.status).toBe('failed');
      expect(view.status).toBe('failed');
      expect(view.cause).toBe(child?.cause);
      expect(view.cause).toBe('step_code_failed');
      expect(view.causeMember).toBe('nested');
      expect(view.causeMessage).toContain(`nested mesh broken failed in child run ${child?.id ?? '?'}`);
      expect(view.causeMessage).toContain('field missing is missing');

      // Fixed and re-opened: the nested member parks again with a new child run, and the run ends done.
      await saveOrThrow(world, { ...BROKEN_CHILD, members: [{ id: 'cut', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'word', field: 'text' }] }] });
      await reopenRun(world.engine, { runId, version: 'pinned' });
      const again = await waitForRun(world.engine.db, runId, { timeoutMs: 20_000 });
      expect(again.status).toBe('done');
      const children = await rows<{ id: string; status: string; parent_message_id: string | null }>(
        world.engine.db,
        sql`select id, status, parent_message_id from runs where parent_run_id = ${runId} order by id`,
      );
      expect(children.map((c) => [c.status, c.parent_message_id !== null])).toEqual([['failed', false], ['done', true]]);
    } finally {
      await runtime.close();
    }
  });

  it(`refuses nesting deeper than ${NESTING_LIMIT} levels with budget_spent`, async () => {
    const world = await worlds.open();
    for (const mesh of chain(NESTING_LIMIT + 1)) await saveOrThrow(world, mesh);
    const runtime = worlds.start(world, { pools: ['default'] });
    try {
      const top = await startRun(world.engine, { meshName: 'level0', input: { payload: { deep: true } } });
      const view = await waitForRun(world.engine.db, top.runId, { timeoutMs: 30_000 });
      expect(view.status).toBe('failed');
      expect(view.cause).toBe('budget_spent');
      expect(view.causeMessage).toContain(`nested meshes went deeper than ${NESTING_LIMIT} levels`);
      const [count] = await rows<{ n: number }>(world.engine.db, sql`select count(*)::int as n from runs`);
      expect(count?.n).toBe(NESTING_LIMIT + 1);

      // One level less fits: the payload comes back up through every parent.
      const fits = await startRun(world.engine, { meshName: 'level1', input: { payload: { deep: true } } });
      const ok = await waitForRun(world.engine.db, fits.runId, { timeoutMs: 30_000 });
      expect(ok.status).toBe('done');
      expect(ok.output).toEqual({ deep: true });
    } finally {
      await runtime.close();
    }
  });
});
