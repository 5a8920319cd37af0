import { describe, expect, it } from 'vitest';
import { saveOrThrow, useWorlds, expectExactDone } from '../../test/harness';
import { listMessages } from './list-messages';
import { startRun } from './start-run';
import { waitForRun } from './wait-run';

// Lines are split, routed by a condition to one of two members on different pools, and collected.
const ROUTED = {
  format: 'trellis.mesh/v1',
  name: 'routed',
  members: [
    { id: 'lines', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'line', field: 'text' }] },
    { id: 'tag', kind: 'agent', model: 'demo', pool: 'agents' },
    { id: 'short', kind: 'workflow', pool: 'light', steps: [{ type: 'map', fields: { line: 'text', by: 'agent' } }] },
    { id: 'long', kind: 'workflow', steps: [{ type: 'map', fields: { long: 'text' } }] },
    { id: 'gather', kind: 'combine', merge: { type: 'collect', into: 'items' } },
  ],
  channels: [
    { from: 'lines', to: 'tag' },
    { from: 'tag', to: 'short', when: "text == 'a\n' or text == 'b'" },
    { from: 'tag', to: 'long', when: "text != 'a\n' and text != 'b'" },
    { from: 'short', to: 'gather' },
    { from: 'long', to: 'gather' },
  ],
};

describe('routing', () => {
  const worlds = useWorlds();

  it('follows conditions, serves every pool a saved mesh uses, and collects in seq order', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, ROUTED);
    const runtime = worlds.start(world, { poolRefreshMs: 100 });
    try {
      const { runId } = await startRun(world.engine, { meshId, input: { text: 'a\nlonger line\nb' } });
      const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
      await expectExactDone(world.engine.db, view.id);
      expect(view.output).toEqual({
        items: [{ line: 'a\n', by: 'tag' }, { long: 'longer line\n' }, { line: 'b', by: 'tag' }],
      });
      expect(view.memberCounts.short?.done).toBe(2);
      expect(view.memberCounts.long?.done).toBe(1);
      const tagged = await listMessages(world.engine.db, { runId, member: 'tag' });
      expect(tagged.items.every((m) => m.pool === 'agents' && m.attempts === 1)).toBe(true);

      // An empty input: the void skips conditions and the agent, and the combine fires once, empty.
      const empty = await startRun(world.engine, { meshId, input: { text: '' } });
      const none = await waitForRun(world.engine.db, empty.runId, { timeoutMs: 30_000 });
      await expectExactDone(world.engine.db, none.id);
      expect(none.output).toEqual({ items: [] });
    } finally {
      await runtime.close();
    }
  });
});
