/**
 * Dead letters (DESIGN §3, guarantee 5), on Postgres and Redis: a member that always throws is
 * retried with exponential backoff, then set aside as `dead`, named on the run with
 * `step_code_failed`; the run ends `failed`, never `done`. A member that throws once and then
 * succeeds ends `done`.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { REDIS_URL, exactness, saveOrThrow, useWorlds } from '../../test/harness';
import { queueName } from '../kernel/queues';
import type { AgentRunner } from '../kernel/engine';
import { listMessages } from '../runs/list-messages';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';

const ATTEMPTS = 4;
const BACKOFF_MS = 250;

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

/** Each gap is at least the backoff of its retry (delay × 2^(n-1)), and each is longer than the one before. */
function expectExponentialBackoff(times: readonly number[]): void {
  const g = gaps(times);
  expect(g).toHaveLength(ATTEMPTS - 1);
  g.forEach((gap, i) => {
    expect(gap).toBeGreaterThanOrEqual(BACKOFF_MS * 2 ** i * 0.9);
    if (i > 0) expect(gap).toBeGreaterThan(g[i - 1] ?? 0);
  });
}

describe('dead letters', () => {
  const worlds = useWorlds();

  async function run(definition: unknown, runAgent?: AgentRunner) {
    const world = await worlds.open({ attempts: ATTEMPTS, backoffMs: BACKOFF_MS, ...(runAgent ? { runAgent } : {}) });
    const meshId = await saveOrThrow(world, definition);
    worlds.start(world, { pools: ['default'] });
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'some words' } });
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

  it('retries a workflow step that always throws with growing gaps (read from the queue events), then dead-letters it', async () => {
    const { view, engine } = await run(STEP_MESH);
    expect(view).toMatchObject({ status: 'failed', cause: 'step_code_failed', causeMember: 'cut' });
    expect(view.counts).toMatchObject({ published: 2, delivered: 2, done: 1, deadLettered: 1, lost: 0, pending: 0, running: 0 });
    const [dead] = (await listMessages(engine.db, { runId: view.id, status: 'dead' })).items;
    expect(dead).toMatchObject({ member: 'cut', attempts: ATTEMPTS });
    expect(dead?.error).toMatch(/field missing is missing/);
    // Every time BullMQ handed the job to a worker, from its event stream (entry ids are ms timestamps).
    const redis = new Redis(REDIS_URL);
    try {
      const events = await redis.xrange(`${engine.config.prefix}:${queueName('default')}:events`, '-', '+');
      const active = events
        .filter(([, f]) => f[f.indexOf('event') + 1] === 'active' && f[f.indexOf('jobId') + 1] === dead?.id)
        .map(([id]) => Number(id.split('-')[0]));
      expect(active).toHaveLength(ATTEMPTS);
      expectExponentialBackoff(active);
    } finally {
      redis.disconnect();
    }
    expect(await exactness(engine.db, view.id)).toMatchObject({ published: 2, delivered: 2, done: 1, notDone: 1 });
  });

  it('ends done when a member throws once and then succeeds', async () => {
    let calls = 0;
    const { view, engine } = await run(AGENT_MESH, (member, payload) => {
      calls += 1;
      if (calls === 1) return Promise.reject(new Error('connection reset by the model provider'));
      return Promise.resolve({ ...(payload as object), agent: member.id });
    });
    expect(view.status).toBe('done');
    expect(view.cause).toBeNull();
    expect(calls).toBe(2);
    expect(view.counts).toMatchObject({ published: 2, delivered: 2, done: 2, deadLettered: 0, lost: 0 });
    const [flaky] = (await listMessages(engine.db, { runId: view.id, member: 'flaky' })).items;
    expect(flaky).toMatchObject({ status: 'done', attempts: 2 });
    expect(view.output).toEqual({ text: 'some words', agent: 'flaky' });
  });
});
