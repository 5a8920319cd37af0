/**
 * Refusals no retry can mend, on the in-process bus (kernel/local-bus.ts, runtime/local-worker.ts):
 * a member publishing on a channel it does not own, the depth limit (`budget_spent`) and a model
 * that is not configured (`agent_or_model_missing`) are dead-lettered after exactly one delivery,
 * however many attempts the engine allows (process/dead-letter.ts `isRetryable`), as on BullMQ
 * (process/guards and process/dead-letter tests, which count BullMQ's `active` events).
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { WORD_SPLIT, saveOrThrow, useWorlds, type TestWorld } from '../../test/harness';
import type { Route } from '../plan/plan';
import { rows } from '../kernel/sql';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';

const ATTEMPTS = 3;

// A model other than demo needs a provider to pass validation; this one's key secret is never stored.
const NO_KEY = { baseUrl: 'http://127.0.0.1:1/v1', apiKeySecret: 'TRELLIS_TEST_UNSET_MODEL_KEY' };

const UNCONFIGURED = {
  format: 'trellis.mesh/v1',
  name: 'unconfigured-model',
  members: [
    { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
    { id: 'real', kind: 'agent', label: 'Real model', model: 'gpt-unavailable', provider: NO_KEY },
  ],
  channels: [{ from: 'head', to: 'real' }],
};

describe('unretryable refusals on the in-process bus', () => {
  const worlds = useWorlds();

  const open = (config: Parameters<typeof worlds.open>[0] = {}) => worlds.open({ bus: 'local', attempts: ATTEMPTS, backoffMs: 100, ...config });

  /** Runs to its end; every dead message was delivered once and its one failed delivery counted. */
  async function expectDeadAfterOneDelivery(world: TestWorld, runId: string, cause: string, member: string): Promise<void> {
    expect(world.engine.localBus).toBeDefined();
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    expect(view).toMatchObject({ status: 'failed', cause, causeMember: member });
    expect(view.causeMessage).toMatch(/\(after 1 attempt\)\.?$/);
    const dead = await rows<{ member: string; attempts: number; bus_tries: number }>(
      world.engine.db,
      sql`select member, attempts, bus_tries from messages where run_id = ${runId} and status = 'dead'`,
    );
    expect(dead).toEqual([{ member, attempts: 1, bus_tries: 1 }]);
  }

  it('dead-letters a member publishing on a channel it does not own after one delivery', async () => {
    const world = await open();
    const { engine } = world;
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const { runId, messageId } = await startRun(engine, { meshId, input: { text: 'a b\nc' } });
    const [plan] = [...engine.plans.values()];
    if (!plan) throw new Error('startRun compiled no plan');
    (plan.routes.get('pages') as Route[]).push({ channel: 'lines->words', to: 'words', pool: 'default', joins: [] });
    worlds.start(world, { pools: ['default'] });
    await expectDeadAfterOneDelivery(world, runId, 'step_code_failed', 'pages');
    // Refused before sending: the head has no child row.
    const [children] = await rows<{ n: number }>(engine.db, sql`select count(*)::int as n from messages where parent_id = ${messageId}`);
    expect(children?.n).toBe(0);
  });

  it('dead-letters a message past the depth limit after one delivery (budget_spent)', async () => {
    const world = await open({ maxDepth: 4 });
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    worlds.start(world, { pools: ['default'] });
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'a b' } });
    await expectDeadAfterOneDelivery(world, runId, 'budget_spent', 'join-lines');
  });

  it('dead-letters an agent whose model is not configured after one delivery (agent_or_model_missing)', async () => {
    const world = await open();
    const meshId = await saveOrThrow(world, UNCONFIGURED);
    worlds.start(world, { pools: ['default'] });
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'x' } });
    await expectDeadAfterOneDelivery(world, runId, 'agent_or_model_missing', 'real');
  });
});
