// Spend budgets per agent, enforced from the usage recorded in Postgres: tokens and dollars, per
// run and per UTC day. The fake provider bills 1000 prompt + 500 completion tokens per call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowInternal, saveOrThrow, useWorlds, type TestWorld } from '../../test/harness';
import type { AgentRunner } from '../kernel/engine';
import { agentRunner } from '../runtime/agent-runner';
import { startFakeOpenAI, type FakeOpenAI } from '../members/agent/test/fake-openai';
import { AdmissionRefusedError } from '../kernel/errors';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { spentSoFar } from '../budgets/spend-ledger';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
});

// $1 per million prompt tokens, $2 per million completion tokens: $0.002 a call.
const PRICES = { plain: { inputPerMillion: 1, outputPerMillion: 2 } };

/** A head that splits its text into words, each sent to the `writer` agent with `budget`. */
const mesh = (name: string, budget: Record<string, number>) => ({
  format: 'trellis.mesh/v1',
  name,
  members: [
    { id: 'cut', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'word', field: 'text' }] },
    { id: 'writer', kind: 'agent', model: 'plain', budget, provider: { baseUrl: fake.baseUrl } },
  ],
  channels: [{ from: 'cut', to: 'writer' }],
});

describe('spend budgets', () => {
  const worlds = useWorlds();

  async function governedWorld(): Promise<TestWorld> {
    const late: { runner?: AgentRunner } = {};
    const world = await worlds.open({ runAgent: (m, p, s, c) => (late.runner as AgentRunner)(m, p, s, c), backoffMs: 50 });
    late.runner = agentRunner(undefined, { db: world.engine.db, prices: PRICES });
    // The fake model server is local: an admin allows it by name under the egress policy.
    await allowInternal(world, new URL(fake.baseUrl).host);
    worlds.start(world);
    return world;
  }

  async function run(world: TestWorld, meshId: string, text: string) {
    const { runId } = await startRun(world.engine, { meshId, input: { payload: { text } } });
    return waitForRun(world.engine.db, runId, { timeoutMs: 60_000 });
  }

  it('fails the run with budget_spent naming the agent and the tokens once a run passes tokensPerRun', async () => {
    const world = await governedWorld();
    const meshId = await saveOrThrow(world, mesh('tokens-run', { tokensPerRun: 2000 }));
    const ok = await run(world, meshId, 'one');
    expect(ok.status).toBe('done');
    const view = await run(world, meshId, 'one two three');
    expect(view.status).toBe('failed');
    expect(view.cause).toBe('budget_spent');
    expect(view.causeMember).toBe('writer');
    expect(view.causeMessage).toMatch(/agent writer spent \d+ tokens in this run, over its budget of 2000/);
    const spent = await spentSoFar(world.engine.db, { runId: view.id, meshId, member: 'writer' });
    expect(spent.run.tokens).toBeGreaterThan(2000);
  }, 60_000);

  it('counts dollars from the price table against usdPerRun', async () => {
    const world = await governedWorld();
    const meshId = await saveOrThrow(world, mesh('usd-run', { usdPerRun: 0.003 }));
    const view = await run(world, meshId, 'one two');
    expect(view.cause).toBe('budget_spent');
    expect(view.causeMessage).toMatch(/agent writer spent \$0\.004000 in this run, over its budget of \$0\.003/);
  }, 60_000);

  it('holds tokensPerDay across runs: the next run is refused at admission, before calling the model', async () => {
    const world = await governedWorld();
    const meshId = await saveOrThrow(world, mesh('tokens-day', { tokensPerDay: 1500 }));
    expect((await run(world, meshId, 'one')).status).toBe('done');
    const calls = fake.requests.length;
    const refused = await startRun(world.engine, { meshId, input: { payload: { text: 'two' } } }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(AdmissionRefusedError);
    const view = await waitForRun(world.engine.db, (refused as AdmissionRefusedError).runId, { timeoutMs: 10_000 });
    expect(view.cause).toBe('budget_spent');
    expect(view.causeMessage).toMatch(/agent writer already spent 1500 tokens today \(UTC\), its budget is 1500 tokens/);
    expect(fake.requests.length).toBe(calls);
  }, 60_000);
});
