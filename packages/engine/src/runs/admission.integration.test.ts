import { describe, expect, it } from 'vitest';
import { saveOrThrow, useWorlds, type TestWorld } from '../../test/harness';
import { AdmissionRefusedError, describeError } from '../kernel/errors';
import { recordSpend } from '../budgets/spend-ledger';
import { startOrchestrator } from '../runtime/orchestrator';
import { ask } from '../assistant/ask';
import type pg from 'pg';
import { messages } from '@trellis/db/schema/messages';
import { liveWorkers, startHeartbeat } from '../kernel/heartbeats';
import { loadPlan } from '../plan/plan';
import { admit, failOverdueWaits } from './admission';
import { sql } from 'drizzle-orm';
import { FenceLostError } from '../kernel/fence';
import { acquireLease, ORCHESTRATOR_LEASE } from '../runtime/leader';
import { getRun } from './get-run';
import { listMessages } from './list-messages';
import { startRun } from './start-run';
import { waitForRun } from './wait-run';
import { runGovernedAgent } from '../governance/governed-agent';
import { startFakeOpenAI } from '../members/agent/test/fake-openai';
import { StepError } from '../kernel/errors';
import { overrideLimits } from '../security/env';

const onGpu = (limits?: { capacityWaitSeconds: number }) => ({
  format: 'trellis.mesh/v1',
  name: 'on-gpu',
  members: [{ id: 'embed', kind: 'workflow', head: true, pool: 'gpu', steps: [{ type: 'pass' }] }],
  channels: [],
  ...(limits ? { limits } : {}),
});

const budgeted = {
  format: 'trellis.mesh/v1',
  name: 'budgeted',
  members: [
    { id: 'intake', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
    { id: 'writer', kind: 'agent', model: 'gpt-4o-mini', provider: { baseUrl: 'https://models.example.com/v1' }, budget: { tokensPerDay: 1000 } },
  ],
  channels: [{ from: 'intake', to: 'writer' }],
};

async function admissionOf(world: TestWorld, runId: string) {
  const run = await getRun(world.engine.db, runId);
  if (!run) throw new Error(`no run ${runId}`);
  return run;
}

/** Starts a run of `meshId`, expects it to wait for the rate limit of `model`, and returns it with its estimate. */
async function modelRateWait(world: TestWorld, meshId: string, model: string) {
  const { runId } = await startRun(world.engine, { meshId, input: { payload: {} } });
  const run = await admissionOf(world, runId);
  expect(run.admission).toMatchObject({ verdict: 'wait', resource: 'model_rate', model });
  return { run, estimate: run.admission?.verdict === 'wait' ? run.admission.estimateSeconds : null };
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await fn();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const rated = {
  format: 'trellis.mesh/v1',
  name: 'rated',
  members: [
    {
      id: 'summarize',
      kind: 'workflow',
      head: true,
      steps: [{ type: 'agent', model: 'rated-model', provider: { baseUrl: 'https://models.example.com/v1', requestsPerMinute: 2, tokensPerMinute: 5000 } }],
    },
  ],
  channels: [],
};

describe('admission (Postgres, Redis)', () => {
  const worlds = useWorlds();

  it('a run whose pool has no live worker waits for a worker, in words; once one runs it says how long it waited', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, onGpu());
    worlds.start(world, { pools: ['default'] });
    const { runId } = await startRun(world.engine, { meshId, input: { payload: { n: 1 } } });
    const waiting = await admissionOf(world, runId);
    expect(waiting.admission).toMatchObject({ verdict: 'wait', resource: 'worker', pool: 'gpu', workers: 0, behind: 0, estimateSeconds: null, waitLimitSeconds: 3600 });
    expect(waiting.admissionLine).toBe('Waits for a worker on pool gpu: none is running; 0 messages ahead.');
    // A second run counts the first as ahead of it.
    const second = await startRun(world.engine, { meshId, input: { payload: { n: 2 } } });
    expect((await admissionOf(world, second.runId)).admissionLine).toBe('Waits for a worker on pool gpu: none is running; 1 message ahead.');
    // The assistant answers why it waits, in the same words.
    const why = await ask(world.engine, { question: `Why does run ${runId} wait?`, userId: 'u1', role: 'operator' });
    expect(why.answer).toBe(`Run ${runId} (on-gpu v1) did not fail: it is running.\nWaits for a worker on pool gpu: none is running; 0 messages ahead.`);

    worlds.start(world, { pools: ['gpu'] });
    await waitForRun(world.engine.db, runId, { timeoutMs: 15_000 });
    const started = await until('the wait to be noted as ended', async () => {
      const run = await admissionOf(world, runId);
      return run.admission?.verdict === 'wait' && run.admission.settledAt ? run : undefined;
    });
    expect(started.admission?.verdict === 'wait' && typeof started.admission.startedAt).toBe('string');
    expect(started.admissionLine).toMatch(/^Waited (\d+ s|less than a second) for a worker on pool gpu, then started\.$/);
  });

  it('a run whose pool has a live worker runs now', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, onGpu());
    worlds.start(world, { pools: ['gpu'], concurrency: 8 });
    // The worker's first beat is sent as it starts; admission reads it back.
    const run = await until('a verdict of now', async () => {
      const { runId } = await startRun(world.engine, { meshId, input: { payload: {} } });
      const r = await admissionOf(world, runId);
      return r.admission?.verdict === 'now' ? r : undefined;
    }, 5_000);
    expect(run.admission).toMatchObject({ verdict: 'now', pool: 'gpu', workers: 1, slots: 8 });
    expect(run.admission?.sentence).toMatch(/^Runs now: 1 worker on pool gpu, \d+ messages? ahead\.$/);
    expect(run.admissionLine).toBeNull();
  });

  it('refuses a run whose agent already spent its day budget, naming the cap, and records it failed', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, budgeted);
    worlds.start(world, { pools: ['default'] });
    // Within the budget: admitted.
    await recordSpend(world.engine.db, { runId: 'r-earlier', meshId, member: 'writer' }, 'gpt-4o-mini', { promptTokens: 400, completionTokens: 100, costUsd: null });
    const ok = await startRun(world.engine, { meshId, input: { payload: {} } });
    expect((await admissionOf(world, ok.runId)).admission?.verdict).toBe('now');

    await recordSpend(world.engine.db, { runId: 'r-earlier', meshId, member: 'writer' }, 'gpt-4o-mini', { promptTokens: 500, completionTokens: 100, costUsd: null });
    const err = await startRun(world.engine, { meshId, input: { payload: {} } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdmissionRefusedError);
    const refused = err as AdmissionRefusedError;
    expect(refused.cap).toBe('budget of agent writer: tokensPerDay');
    expect(describeError(refused)).toMatchObject({ status: 429, code: 'admission_refused', cause: 'budget_spent' });
    expect(refused.message).toBe('Refused: agent writer already spent 1100 tokens today (UTC), its budget is 1000 tokens (budget of agent writer: tokensPerDay).');
    const run = await admissionOf(world, refused.runId);
    expect(run).toMatchObject({ status: 'failed', cause: 'budget_spent', admission: { verdict: 'refused', cap: 'budget of agent writer: tokensPerDay' } });
    expect(run.causeMessage).toContain('budget of agent writer: tokensPerDay');
    expect(run.admissionLine).toBe(refused.message);
  });

  it("refuses up front a run that would pass an admin's cap on one author's share, naming the cap and its policy", async () => {
    const world = await worlds.open();
    worlds.start(world, { pools: ['default'] });
    const splitter = await saveOrThrow(world, {
      format: 'trellis.mesh/v1',
      name: 'splitter',
      members: [{ id: 'cut', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'word' }] }],
      channels: [],
    });
    const coder = await saveOrThrow(world, {
      format: 'trellis.mesh/v1',
      name: 'coder',
      members: [
        { id: 'intake', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
        { id: 'crunch', kind: 'workflow', steps: [{ type: 'pass' }, { type: 'code', source: 'return payload', memoryMb: 512 }] },
      ],
      channels: [{ from: 'intake', to: 'crunch' }],
    });
    const restore = overrideLimits({ maxSplitBranches: 3, sandboxMemoryMb: 512 });
    try {
      // Within the caps: admitted.
      expect((await admissionOf(world, (await startRun(world.engine, { meshId: splitter, input: { text: 'one two three' } })).runId)).admission?.verdict).toBe('now');
      const split = await startRun(world.engine, { meshId: splitter, input: { text: 'one two three four five' } }).catch((e: unknown) => e);
      expect(split).toBeInstanceOf(AdmissionRefusedError);
      expect((split as AdmissionRefusedError).cap).toBe('policy TRELLIS_MAX_SPLIT_BRANCHES');
      expect((split as AdmissionRefusedError).message).toBe("Refused: the head cut would split the input's text into 5 parts by word, over the cap of 3 (policy TRELLIS_MAX_SPLIT_BRANCHES).");
      const run = await admissionOf(world, (split as AdmissionRefusedError).runId);
      expect(run).toMatchObject({ status: 'failed', cause: 'budget_spent', admission: { verdict: 'refused', cap: 'policy TRELLIS_MAX_SPLIT_BRANCHES' } });
      expect(await listMessages(world.engine.db, { runId: run.id })).toMatchObject({ items: [] });

      const code = await startRun(world.engine, { meshId: coder, input: { payload: {} } }).catch((e: unknown) => e);
      expect(code).toBeInstanceOf(AdmissionRefusedError);
      expect((code as AdmissionRefusedError).message).toBe(
        'Refused: code step 2 of member crunch needs a 576 MB sandbox (512 MB for the code), over the 512 MB all sandboxes of a worker may hold (policy TRELLIS_SANDBOX_MEMORY_MB).',
      );
    } finally {
      restore();
    }
  });

  it("waits for a model's rate limit while the last minute's calls reach the provider's requestsPerMinute", async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, rated);
    worlds.start(world, { pools: ['default'] });
    const call = { promptTokens: 10, completionTokens: 5, costUsd: null };
    await recordSpend(world.engine.db, { runId: 'r-earlier', meshId, member: 'summarize' }, 'rated-model', call);
    const under = await startRun(world.engine, { meshId, input: { payload: {} } });
    expect((await admissionOf(world, under.runId)).admission?.verdict).toBe('now');
    await recordSpend(world.engine.db, { runId: 'r-earlier', meshId, member: 'summarize' }, 'rated-model', call);
    const { run, estimate } = await modelRateWait(world, meshId, 'rated-model');
    expect(estimate).toBeGreaterThan(50);
    expect(estimate).toBeLessThanOrEqual(60);
    expect(run.admissionLine).toMatch(/^Waits for the rate limit of model rated-model: 2 calls in the last minute; its provider allows 2 a minute, about (59|60) s\.$/);
  });

  it('waits out the retry-after of a model whose provider answered 429, for that model at that provider only', async () => {
    const world = await worlds.open();
    const fake = await startFakeOpenAI();
    try {
      const onModel = (baseUrl: string) => ({
        format: 'trellis.mesh/v1',
        name: `on-window-${baseUrl.length}`,
        members: [{ id: 'ask', kind: 'workflow', head: true, steps: [{ type: 'agent', model: 'ratelimit-window', provider: { baseUrl } }] }],
        channels: [],
      });
      const meshId = await saveOrThrow(world, onModel(fake.baseUrl));
      const elsewhere = await saveOrThrow(world, onModel('https://models.example.com/v1'));
      worlds.start(world, { pools: ['default'] });
      expect((await admissionOf(world, (await startRun(world.engine, { meshId, input: { payload: {} } })).runId)).admission?.verdict).toBe('now');
      // The agent's call, through the real SDK to the local server: 429 with retry-after 120, no retry.
      const member = { id: 'ask', kind: 'agent' as const, model: 'ratelimit-window', instructions: '', provider: { baseUrl: fake.baseUrl } };
      const noSecrets = { reveal: () => Promise.reject(new Error('this agent lists no tools')) };
      const err = await runGovernedAgent(world.engine.db, noSecrets, member, {}, { runId: 'r-earlier', meshId }, { env: {}, retry: { maxRetries: 0 } }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StepError);
      expect((err as StepError).cause).toBe('rate_limited');
      expect(fake.requests.filter((r) => r.model === 'ratelimit-window')).toHaveLength(1);

      const { run, estimate } = await modelRateWait(world, meshId, 'ratelimit-window');
      expect(estimate).toBeGreaterThan(110);
      expect(estimate).toBeLessThanOrEqual(120);
      expect(run.admissionLine).toMatch(/^Waits for the rate limit of model ratelimit-window: its provider http:\/\/127\.0\.0\.1:\d+\/v1 answered 429 Too Many Requests (\d+ s|less than a second) ago; it asked to wait 2 min \(retry-after\), about 2 min\.$/);
      // The same model at another provider is not held back, nor is this one once the window has passed.
      expect((await admissionOf(world, (await startRun(world.engine, { meshId: elsewhere, input: { payload: {} } })).runId)).admission?.verdict).toBe('now');
      const plan = await loadPlan(world.engine, meshId, 1);
      expect((await admit(world.engine, { plan, meshId, runId: 'r-later', now: new Date(Date.now() + 121_000) })).verdict).toBe('now');
    } finally {
      await fake.close();
    }
  });

  it('waits for a free slot when running messages fill the live workers\' concurrency and more are pending', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, { ...onGpu(), name: 'on-busy', members: [{ id: 'embed', kind: 'workflow', head: true, pool: 'busy', steps: [{ type: 'pass' }] }] });
    const beat = startHeartbeat(world.engine, 'busy', 2);
    try {
      const plan = await loadPlan(world.engine, meshId, 1);
      const row = (id: string, status: 'running' | 'pending') => ({ id, runId: 'r-other', member: 'embed', pool: 'busy', payload: {}, status });
      await world.engine.db.insert(messages).values([row('m1', 'running'), row('m2', 'pending')]);
      // One running of two slots: a slot is free.
      expect((await admit(world.engine, { plan, meshId, runId: 'r-new' })).verdict).toBe('now');
      await world.engine.db.insert(messages).values([row('m3', 'running'), row('m4', 'pending'), row('m5', 'pending')]);
      const full = await admit(world.engine, { plan, meshId, runId: 'r-new' });
      expect(full).toMatchObject({ verdict: 'wait', resource: 'slots', pool: 'busy', workers: 1, slots: 2, behind: 3, estimateSeconds: null });
      expect(full.sentence).toBe('Waits for a free slot on pool busy: its 1 worker holds 2 messages at once and all are busy; 3 messages ahead.');
    } finally {
      await beat.stop();
    }
    // A stopped worker no longer counts.
    expect(await liveWorkers(world.engine, 'busy')).toEqual({ workers: 0, slots: 0 });
  });

  it('waits for a database connection while every connection of the pool is out and queries queue', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, onGpu());
    const beat = startHeartbeat(world.engine, 'gpu', 4);
    const plan = await loadPlan(world.engine, meshId, 1);
    const pool = (world.engine.db as unknown as { $client: pg.Pool }).$client;
    const held = await Promise.all(Array.from({ length: 10 }, () => pool.connect()));
    const queued = pool.query('select 1');
    try {
      const verdict = admit(world.engine, { plan, meshId, runId: 'r-new' });
      for (const c of held) c.release();
      await queued;
      const got = await verdict;
      expect(got).toMatchObject({ verdict: 'wait', resource: 'db_pool', pool: 'gpu' });
      expect(got.sentence).toBe('Waits for a database connection: all 10 are in use and 1 query waits.');
      // With connections free again: now.
      expect((await admit(world.engine, { plan, meshId, runId: 'r-new' })).verdict).toBe('now');
    } finally {
      await beat.stop();
    }
  });

  it('fails a run still waiting past its mesh limit with capacity_wait_exceeded and the wait sentence', async () => {
    const world = await worlds.open({ tickMs: 200 });
    const meshId = await saveOrThrow(world, onGpu({ capacityWaitSeconds: 1 }));
    const { runId } = await startRun(world.engine, { meshId, input: { payload: {} } });
    const wait = (await admissionOf(world, runId)).admission;
    expect(wait).toMatchObject({ verdict: 'wait', resource: 'worker', waitLimitSeconds: 1 });
    const orchestrator = startOrchestrator(world.engine);
    try {
      const failed = await until('the run to fail', async () => {
        const run = await admissionOf(world, runId);
        return run.status === 'failed' ? run : undefined;
      });
      expect(failed.cause).toBe('capacity_wait_exceeded');
      expect(failed.causeMessage).toMatch(/^The run waited too long for capacity: it waited \d+ s, past its limit of 1 s\. Waits for a worker on pool gpu: none is running; 0 messages ahead\.$/);
      expect(failed.admission?.verdict === 'wait' && typeof failed.admission.settledAt).toBe('string');
      expect(failed.admission).not.toHaveProperty('startedAt');
      const head = await listMessages(world.engine.db, { runId });
      expect(head.items.map((m) => m.status)).toEqual(['cancelled']);
    } finally {
      await orchestrator.close();
    }
  });

  it('a deposed leader cannot fail an overdue run: the wait pass runs under the fence', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, onGpu({ capacityWaitSeconds: 1 }));
    const { runId } = await startRun(world.engine, { meshId, input: { payload: {} } });
    const { db } = world.engine;
    // Admitted to wait an hour ago: overdue for any pass that may write.
    await db.execute(sql`update runs set admission = jsonb_set(admission, '{at}', to_jsonb((now() - interval '1 hour')::text)) where id = ${runId}`);
    const old = await acquireLease(db, ORCHESTRATOR_LEASE, 'old', 60_000);
    if (!old) throw new Error('no lease');
    // Another orchestrator takes over: the token moves on.
    await db.execute(sql`update orchestrator_lease set holder = 'new', token = token + 1`);
    await expect(failOverdueWaits(world.engine, old)).rejects.toBeInstanceOf(FenceLostError);
    expect((await admissionOf(world, runId)).status).toBe('running');
    const next = { ...old, holder: 'new', token: String(Number(old.token) + 1) };
    expect(await failOverdueWaits(world.engine, next)).toEqual([runId]);
    expect((await admissionOf(world, runId)).cause).toBe('capacity_wait_exceeded');
  });
});
