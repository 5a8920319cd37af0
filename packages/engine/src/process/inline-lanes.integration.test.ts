/**
 * Inline lanes across pools, on real Postgres and Redis: a process serving two pools keeps the
 * combine's parts that a heavy member's commit (on `agents`) produces for `default` in the
 * `default` worker's lane instead of adding them as jobs; the run ends exact, every message once.
 */
import { describe, expect, it, vi } from 'vitest';
import { expectExactDone, saveOrThrow, useWorlds, type TestWorld } from '../../test/harness';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';

/** split by word → an agent on the demo model on its own pool → combine. */
const HEAVY_BRANCH = JSON.stringify({
  format: 'trellis.mesh/v1',
  name: 'heavy-branch',
  members: [
    { id: 'words', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'word', field: 'text' }] },
    { id: 'each', kind: 'agent', model: 'demo', pool: 'agents' },
    { id: 'join', kind: 'combine', merge: { type: 'concat', field: 'text' } },
  ],
  channels: [
    { from: 'words', to: 'each' },
    { from: 'each', to: 'join' },
  ],
});

/** The jobs added to `pool`'s queue from now on (the real queue, observed through a spy). */
function jobsAdded(world: TestWorld, pool: string): () => number {
  const spy = vi.spyOn(world.engine.queue(pool), 'addBulk');
  return () => spy.mock.calls.reduce((n, [jobs]) => n + jobs.length, 0);
}

describe('inline lanes across pools', () => {
  const worlds = useWorlds();

  it("a heavy member's combine parts for another pool served here stay inline; the run ends exact", { timeout: 120_000 }, async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, HEAVY_BRANCH);
    const defaultJobs = jobsAdded(world, 'default');
    const agentJobs = jobsAdded(world, 'agents');
    const runtime = worlds.start(world, { pools: ['default', 'agents'], concurrency: 50 });
    const words = Array.from({ length: 300 }, (_, i) => `w${i}`);
    const text = words.join(' ');
    const { runId } = await startRun(world.engine, { meshId, input: { text } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 100_000 });
    await runtime.close();
    const ex = await expectExactDone(world.engine.db, view.id);
    expect((view.output as { text: string }).text).toBe(text);
    expect(ex.delivered).toBe(ex.published);
    // Heavy members keep their queue; only the head is a job on `default` (the parts went inline).
    expect(agentJobs()).toBe(words.length);
    expect(defaultJobs()).toBe(1);
  });
});
