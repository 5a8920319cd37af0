/**
 * Dead letters (DESIGN §3, guarantee 5), on Postgres and Redis: a member that always throws is
 * retried with exponential backoff, then set aside as `dead`, named on the run with
 * `step_code_failed`; the run ends `failed`, never `done`. A member that throws once and then
 * succeeds ends `done`. A refusal the mesh file alone decides (a model not configured, the depth
 * limit) is not retried: it is dead-lettered after exactly one delivery. An agent past its deadline
 * fails with `timed_out`.
 */
import { describe, expect, it } from 'vitest';
import { TEST_BUS, WORD_SPLIT, activeEvents, exactness, expectExactDone, saveOrThrow, useWorlds } from '../../test/harness';
import type { AgentRunner, Engine } from '../kernel/engine';
import type { RunView } from '../runs/get-run';
import { listMessages } from '../runs/list-messages';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';

const ATTEMPTS = 4;
const BACKOFF_MS = 250;

// A model other than demo needs a provider to pass validation; this one's key secret is never stored.
const NO_KEY = { baseUrl: 'http://127.0.0.1:1/v1', apiKeySecret: 'TRELLIS_TEST_UNSET_MODEL_KEY' };

const mesh = (members: unknown[], channels: unknown[]) => ({ format: 'trellis.mesh/v1', name: 'throwing', members, channels });

/** head (pass) → `flaky`, an agent whose runner the test supplies. */
const AGENT_MESH = mesh(
  [
    { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
    { id: 'flaky', kind: 'agent', label: 'Flaky agent', model: 'demo' },
  ],
  [{ from: 'head', to: 'flaky' }],
);

/** head (map) → `cut`, a workflow whose split step throws on every delivery (its field is missing). */
const STEP_MESH = mesh(
  [
    { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'map', fields: { count: 'text' } }] },
    { id: 'cut', kind: 'workflow', label: 'Cut words', steps: [{ type: 'split', by: 'word', field: 'missing' }] },
  ],
  [{ from: 'head', to: 'cut' }],
);

/** Milliseconds between consecutive times. */
const gaps = (times: readonly number[]) => times.slice(1).map((t, i) => t - (times[i] ?? t));

/**
 * Each gap is at least the backoff of its retry (delay × 2^(n-1)). Lower bounds only: a loaded
 * machine makes gaps longer, never shorter, so an upper bound would only measure the load.
 */
function expectExponentialBackoff(times: readonly number[]): void {
  const g = gaps(times);
  expect(g).toHaveLength(ATTEMPTS - 1);
  g.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(BACKOFF_MS * 2 ** i * 0.9));
}

describe('dead letters', () => {
  const worlds = useWorlds();

  async function run(definition: unknown, runAgent?: AgentRunner, config: Parameters<typeof worlds.open>[0] = {}, text = 'some words') {
    const world = await worlds.open({ attempts: ATTEMPTS, backoffMs: BACKOFF_MS, ...(runAgent ? { runAgent } : {}), ...config });
    const meshId = await saveOrThrow(world, definition);
    worlds.start(world, { pools: ['default'] });
    const { runId } = await startRun(world.engine, { meshId, input: { text } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    return { view, engine: world.engine };
  }

  it('retries an agent that always throws with growing gaps, then dead-letters it and fails the run', async () => {
    const calls: number[] = [];
    const { view, engine } = await run(AGENT_MESH, () => {
      calls.push(Date.now());
      return Promise.reject(new Error('the model provider answered 500'));
    });
    expect(view).toMatchObject({ status: 'failed', cause: 'step_code_failed', causeMember: 'flaky' });
    expect(view.causeMessage).toMatch(/Flaky agent.*answered 500 \(after 4 attempts\)/);
    expect(calls).toHaveLength(ATTEMPTS);
    expectExponentialBackoff(calls);
    expect(view.counts).toMatchObject({ published: 2, delivered: 2, done: 1, deadLettered: 1, lost: 0, pending: 0, running: 0 });
    const [dead] = (await listMessages(engine.db, { runId: view.id, status: 'dead' })).items;
    expect(dead).toMatchObject({ member: 'flaky', attempts: ATTEMPTS });
    expect(dead?.error).toMatch(/answered 500/);
  });

  // Reads BullMQ's event stream; the in-process bus's backoff is runtime/local-bus.integration.test.ts's.
  it.skipIf(TEST_BUS === 'local')('retries a workflow step that always throws with growing gaps (read from the queue events), then dead-letters it', async () => {
    const { view, engine } = await run(STEP_MESH);
    expect(view).toMatchObject({ status: 'failed', cause: 'step_code_failed', causeMember: 'cut' });
    expect(view.counts).toMatchObject({ published: 2, delivered: 2, done: 1, deadLettered: 1, lost: 0, pending: 0, running: 0 });
    const [dead] = (await listMessages(engine.db, { runId: view.id, status: 'dead' })).items;
    expect(dead).toMatchObject({ member: 'cut', attempts: ATTEMPTS });
    expect(dead?.error).toMatch(/field missing is missing/);
    // Every time BullMQ handed the job to a worker, from its event stream.
    const active = await activeEvents(engine.config.prefix, 'default', dead?.id ?? '');
    expect(active).toHaveLength(ATTEMPTS);
    expectExponentialBackoff(active);
    expect(await exactness(engine.db, view.id)).toMatchObject({ published: 2, delivered: 2, done: 1, notDone: 1 });
  });

  it('ends done when a member throws once and then succeeds', async () => {
    let calls = 0;
    const { view, engine } = await run(AGENT_MESH, (member, payload) => {
      calls += 1;
      if (calls === 1) return Promise.reject(new Error('connection reset by the model provider'));
      return Promise.resolve({ ...(payload as object), agent: member.id });
    });
    await expectExactDone(engine.db, view.id);
    expect(view.cause).toBeNull();
    expect(calls).toBe(2);
    expect(view.counts).toMatchObject({ published: 2, delivered: 2, done: 2, deadLettered: 0, lost: 0 });
    const [flaky] = (await listMessages(engine.db, { runId: view.id, member: 'flaky' })).items;
    expect(flaky).toMatchObject({ status: 'done', attempts: 2 });
    expect(view.output).toEqual({ text: 'some words', agent: 'flaky' });
  });

  /** Every dead message of a failed run was delivered exactly once, and the run's sentence says so. */
  async function expectDeadAfterOneAttempt(engine: Engine, view: RunView): Promise<void> {
    const dead = (await listMessages(engine.db, { runId: view.id, status: 'dead' })).items;
    expect(dead.length).toBeGreaterThan(0);
    for (const d of dead) {
      expect(d.attempts).toBe(1);
      // BullMQ's event stream says it was handed out once (the in-process bus has no stream: attempts says it).
      if (TEST_BUS === 'redis') expect(await activeEvents(engine.config.prefix, 'default', d.id)).toHaveLength(1);
    }
    expect(view.causeMessage).toMatch(/\(after 1 attempt\)\.?$/);
  }

  it('dead-letters an agent whose model is not configured after exactly one attempt (agent_or_model_missing is not retryable)', async () => {
    const def = mesh(
      [
        { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
        { id: 'real', kind: 'agent', label: 'Real model', model: 'gpt-unavailable', provider: NO_KEY },
      ],
      [{ from: 'head', to: 'real' }],
    );
    const { view, engine } = await run(def);
    expect(view).toMatchObject({ status: 'failed', cause: 'agent_or_model_missing', causeMember: 'real' });
    await expectDeadAfterOneAttempt(engine, view);
  });

  it('dead-letters a message past the depth limit after exactly one attempt (budget_spent is not retryable)', async () => {
    const { view, engine } = await run(JSON.parse(WORD_SPLIT) as unknown, undefined, { maxDepth: 4 }, 'a b');
    expect(view).toMatchObject({ status: 'failed', cause: 'budget_spent', causeMember: 'join-lines' });
    await expectDeadAfterOneAttempt(engine, view);
  });

  it('fails an agent past its deadline with timed_out, stopping each attempt no sooner than the limit', async () => {
    const LIMIT_MS = 300;
    const calls: { at: number; abortedAt?: number }[] = [];
    const { view, engine } = await run(
      AGENT_MESH,
      (_member, _payload, signal) => {
        const call: { at: number; abortedAt?: number } = { at: Date.now() };
        calls.push(call);
        signal.addEventListener('abort', () => (call.abortedAt = Date.now()), { once: true });
        return new Promise(() => undefined);
      },
      { agentTimeoutMs: LIMIT_MS, attempts: 2, backoffMs: 20 },
    );
    expect(view).toMatchObject({ status: 'failed', cause: 'timed_out', causeMember: 'flaky' });
    expect(view.causeMessage).toMatch(/took longer than 0\.3 s \(after 2 attempts\)/);
    // A timeout is retried like any provider failure; each attempt was told to stop, never before the limit.
    expect(calls).toHaveLength(2);
    // The deadline's timer starts before the provider is called (the step's own set-up comes
    // between), so a loaded machine sees the abort a little under LIMIT_MS after the call: a lower
    // bound with that slack still fails an abort that comes early (at once, or at half the limit).
    for (const c of calls) expect((c.abortedAt ?? 0) - c.at).toBeGreaterThanOrEqual(LIMIT_MS - 60);
    const [dead] = (await listMessages(engine.db, { runId: view.id, status: 'dead' })).items;
    expect(dead).toMatchObject({ member: 'flaky', attempts: 2 });
  });
});
