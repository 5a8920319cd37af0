/**
 * Ending a run stops its work, and live work is never a stall: a failing heavy part is retried and
 * dead-lettered when it fails, not when its slowest batch-mate ends; a failed or cancelled run
 * aborts its running steps (HTTP, SQL, code, agent calls) and the abort latency is measured; a step
 * running under a renewed lease keeps its run out of `stalled`; a stalled run that moves again
 * clears its Action Center item.
 */
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { saveOrThrow, useWorlds } from '../../test/harness';
import { startRecorder, until, type Recorder } from '../../test/recorder';
import { startFakeOpenAI } from '../members/agent/test/fake-openai';
import { agentRunner } from '../runtime/agent-runner';
import { rows } from '../kernel/sql';
import { cancelRun, RunEndedAlreadyError } from './cancel-run';
import { startRun } from './start-run';
import { waitForRun } from './wait-run';

const split = { id: 'split', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'word' }] };

/** Each word is one HTTP call to the recorder at `/<word>` (trimmed). */
function perWord(rec: Recorder, extra: Record<string, unknown> = {}) {
  return {
    format: 'trellis.mesh/v1',
    name: 'per-word',
    members: [
      split,
      { id: 'trim', kind: 'workflow', steps: [{ type: 'map', fields: { text: 'text', word: 'text' } }] },
      {
        id: 'call',
        kind: 'workflow',
        steps: [{ type: 'http', method: 'GET', url: `${rec.url}/{word}`, allowHosts: [rec.host], timeoutMs: 60_000 }],
        ...extra,
      },
      { id: 'join', kind: 'combine', merge: { type: 'concat', field: 'text' } },
    ],
    channels: [
      { from: 'split', to: 'trim' },
      { from: 'trim', to: 'call' },
      { from: 'call', to: 'join' },
    ],
  };
}

describe('ending a run stops its work; live work is not a stall', () => {
  const worlds = useWorlds();
  let recorder: Recorder | undefined;
  afterEach(async () => {
    await recorder?.close();
    recorder = undefined;
  });

  it('dead-letters a failing heavy part when it fails, then aborts its slow siblings, and says how fast', async () => {
    const world = await worlds.open({ attempts: 2, backoffMs: 100 });
    const rec = (recorder = await startRecorder());
    rec.on('/slow', { delayMs: 30_000 });
    rec.on('/bad', { delayMs: 300, status: 503 });
    const meshId = await saveOrThrow(world, perWord(rec));
    worlds.start(world);
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'slow bad slow ' } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 20_000 });
    expect(view.status).toBe('failed');
    expect(view.cause).toBe('step_code_failed');
    expect(view.causeMessage).toContain('after 2 attempts');
    // Retried and dead-lettered while its 30 s siblings still ran: both were aborted, never answered.
    const slow = await until(() => {
      const s = rec.seen.filter((x) => x.path.startsWith('/slow'));
      return s.length === 2 && s.every((x) => x.abortedAt !== undefined) ? s : undefined;
    }, 'both slow calls to be aborted', 10_000);
    const [ended] = await rows<{ at: number }>(world.engine.db, sql`select (extract(epoch from ended_at) * 1000)::float8 as at from runs where id = ${runId}`);
    const latency = Math.max(...slow.map((s) => (s.abortedAt ?? 0) - Number(ended?.at)));
    console.log(`abort latency after a dead letter: ${latency.toFixed(0)} ms`);
    const cancelled = await rows<{ n: number }>(world.engine.db, sql`select count(*)::int as n from messages where run_id = ${runId} and member = 'call' and status = 'cancelled'`);
    expect(cancelled[0]?.n).toBe(2);
  });

  it('a person cancels a run: running HTTP, SQL, code and agent steps stop, and nothing runs after', async () => {
    const rec = (recorder = await startRecorder());
    rec.on('/', { delayMs: 60_000 });
    const model = await startFakeOpenAI();
    const mesh = {
      format: 'trellis.mesh/v1',
      name: 'cancel-me',
      members: [
        { id: 'fan', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
        { id: 'http', kind: 'workflow', steps: [{ type: 'http', url: `${rec.url}/hang`, allowHosts: [rec.host], timeoutMs: 120_000 }] },
        { id: 'sql', kind: 'workflow', steps: [{ type: 'sql', connection: 'trellis', query: 'select pg_sleep(60) as slept', timeoutMs: 120_000 }] },
        { id: 'code', kind: 'workflow', steps: [{ type: 'code', source: 'for (;;) {}', timeoutMs: 120_000 }] },
        { id: 'llm', kind: 'agent', model: 'hang', provider: { baseUrl: model.baseUrl, apiKeyEnv: 'FAKE_KEY' } },
      ],
      channels: ['http', 'sql', 'code', 'llm'].map((to) => ({ from: 'fan', to })),
    };
    const engineWorld = await worlds.open({ runAgent: agentRunner({ FAKE_KEY: 'k' }), variables: {} });
    const meshId = await saveOrThrow(engineWorld, mesh);
    worlds.start(engineWorld);
    const { runId } = await startRun(engineWorld.engine, { meshId, input: { text: 'go' } });
    await rec.waitFor(1);
    await until(async () => {
      const [m] = await rows<{ n: number }>(engineWorld.engine.db, sql`select count(*)::int as n from messages where run_id = ${runId} and status = 'running'`);
      return m?.n === 4 ? true : undefined;
    }, 'all four steps running');
    await until(() => (model.requests.length > 0 ? true : undefined), 'the model call');
    await until(async () => {
      const q = await rows<{ n: number }>(engineWorld.engine.db, sql`select count(*)::int as n from pg_stat_activity where query like '%pg_sleep(60)%' and pid <> pg_backend_pid()`);
      return (q[0]?.n ?? 0) > 0 ? true : undefined;
    }, 'the SQL query to run');
    const cancelledAt = Date.now();
    const result = await cancelRun(engineWorld.engine, { runId, reason: 'wrong input' });
    expect(result).toMatchObject({ runId, status: 'cancelled', messages: 4 });
    // Every step is stopped: the HTTP and model connections close, the query is cancelled on the server.
    const http = await until(() => rec.seen[0]?.abortedAt, 'the HTTP call to be aborted', 10_000);
    const agent = await until(() => model.requests[0]?.abortedAt, 'the model call to be aborted', 10_000);
    const query = await until(async () => {
      const q = await rows<{ n: number }>(engineWorld.engine.db, sql`select count(*)::int as n from pg_stat_activity where query like '%pg_sleep(60)%' and state = 'active' and pid <> pg_backend_pid()`);
      return q[0]?.n === 0 ? Date.now() : undefined;
    }, 'the SQL query to be cancelled', 10_000, 20);
    console.log(`abort latency after cancel: http ${http - cancelledAt} ms, agent ${agent - cancelledAt} ms, sql ≤ ${query - cancelledAt} ms`);
    const view = await waitForRun(engineWorld.engine.db, runId, { timeoutMs: 1000 });
    expect(view.status).toBe('cancelled');
    expect(view.causeMessage).toBe('Cancelled by the system: wrong input.');
    expect(view.counts.cancelled).toBe(4);
    // The code sandbox was killed too: no step is running, and none is left to run.
    await until(async () => {
      const [m] = await rows<{ n: number }>(engineWorld.engine.db, sql`select count(*)::int as n from messages where run_id = ${runId} and status in ('running', 'pending')`);
      return m?.n === 0 ? true : undefined;
    }, 'no open message', 10_000);
    await expect(cancelRun(engineWorld.engine, { runId })).rejects.toBeInstanceOf(RunEndedAlreadyError);
    await model.close();
  });

  it('a healthy step longer than the stall limit keeps its run running, never stalled', async () => {
    const world = await worlds.open({ stallAfterMs: 1000, tickMs: 100, leaseMs: 1500 });
    const rec = (recorder = await startRecorder());
    rec.on('/long', { delayMs: 4000 });
    const meshId = await saveOrThrow(world, perWord(rec));
    worlds.start(world);
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'long ' } });
    const seen = new Set<string>();
    for (let view = await waitForRun(world.engine.db, runId, { timeoutMs: 50 }); view.status === 'running' || view.status === 'stalled'; ) {
      seen.add(view.status);
      await new Promise((r) => setTimeout(r, 50));
      view = await waitForRun(world.engine.db, runId, { timeoutMs: 50 });
      if (view.status !== 'running' && view.status !== 'stalled') seen.add(view.status);
    }
    expect([...seen]).toEqual(['running', 'done']);
  });

  it('a stalled run that moves again clears its Action Center item, recorded in its history', async () => {
    const world = await worlds.open({ stallAfterMs: 300, tickMs: 50 });
    const meshId = await saveOrThrow(world, {
      format: 'trellis.mesh/v1',
      name: 'waits-for-a-pool',
      members: [
        { id: 'start', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
        { id: 'later', kind: 'workflow', pool: 'later', steps: [{ type: 'pass' }] },
      ],
      channels: [{ from: 'start', to: 'later' }],
    });
    worlds.start(world, { pools: ['default'] });
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'x' } });
    const item = await until(async () => {
      const [i] = await rows<{ id: string }>(
        world.engine.db,
        sql`select ai.id from action_items ai join action_item_runs r on r.item_id = ai.id where r.run_id = ${runId} and ai.cause = 'stalled'`,
      );
      return i?.id;
    }, 'a stalled item');
    expect((await waitForRun(world.engine.db, runId, { timeoutMs: 10 })).status).toBe('stalled');
    worlds.start(world, { pools: ['later'] });
    await until(async () => ((await waitForRun(world.engine.db, runId, { timeoutMs: 10 })).status === 'done' ? true : undefined), 'the run to end done', 10_000);
    const [state] = await rows<{ state: string; resolution: string; resolved_by: string | null }>(
      world.engine.db,
      sql`select state, resolution, resolved_by from action_items where id = ${item}`,
    );
    expect(state).toEqual({ state: 'resolved', resolution: 'cleared automatically: its runs moved again', resolved_by: null });
    const history = await rows<{ action: string }>(world.engine.db, sql`select action from action_item_history where item_id = ${item} order by id`);
    expect(history.map((h) => h.action)).toEqual(['opened', 'run_added', 'run_moved', 'resolved']);
  });
});
