import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { saveOrThrow, type TestWorld, useWorlds } from '../../test/harness';
import { listMessages } from '../runs/list-messages';
import { reopenRun } from '../runs/reopen-run';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { rows } from '../kernel/sql';
import { claimJob } from './claim-job';
import { completeJob } from './complete-job';
import { ServiceUnauthorizedError } from './errors';
import { failJob } from './fail-job';
import { addService } from './registry';

// Lines are split, each line checked by an outside service, and the answers collected in order.
const CHECKED = {
  format: 'trellis.mesh/v1',
  name: 'checked',
  members: [
    { id: 'lines', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'line', field: 'text' }] },
    { id: 'check', kind: 'service', service: 'records-check', claimTimeoutSeconds: 60, label: 'Records check' },
    { id: 'found', kind: 'workflow', steps: [{ type: 'map', fields: { line: 'text', status: 'status' } }] },
    { id: 'gather', kind: 'combine', merge: { type: 'collect', into: 'items' } },
  ],
  channels: [
    { from: 'lines', to: 'check' },
    { from: 'check', to: 'found', when: "status == 'found'" },
    { from: 'check', to: 'gather', when: "status != 'found'" },
    { from: 'found', to: 'gather' },
  ],
};

const PLAIN = {
  format: 'trellis.mesh/v1',
  name: 'plain',
  members: [{ id: 'only', kind: 'workflow', head: true, steps: [{ type: 'map', fields: { said: 'text' } }] }],
  channels: [],
};

const SHORT_WAIT = {
  format: 'trellis.mesh/v1',
  name: 'short-wait',
  members: [{ id: 'check', kind: 'service', service: 'records-check', head: true, claimTimeoutSeconds: 1, label: 'Records check' }],
  channels: [],
};

async function statusOf(world: TestWorld, messageMember: string, runId: string): Promise<string[]> {
  const got = await rows<{ status: string }>(
    world.engine.db,
    sql`select status from messages where run_id = ${runId} and member = ${messageMember} order by seq`,
  );
  return got.map((r) => r.status);
}

describe('outside services', () => {
  const worlds = useWorlds();

  it('parks without holding a worker, continues through conditions and the join, and completes idempotently', async () => {
    const world = await worlds.open();
    const { apiKey } = await addService(world.engine.db, { name: 'records-check' });
    const meshId = await saveOrThrow(world, CHECKED);
    const plainId = await saveOrThrow(world, PLAIN);
    // One job at a time: a worker held by a parked message would block the second run.
    const runtime = worlds.start(world, { pools: ['default'], concurrency: 1 });
    try {
      const { runId } = await startRun(world.engine, { meshId, input: { text: 'A-1\nB-2\nA-3' } });
      const jobs = [];
      for (let i = 0; i < 3; i++) {
        const job = await claimJob(world.engine, { service: 'records-check', apiKey, waitSeconds: 10 });
        expect(job).not.toBeNull();
        jobs.push(job);
      }
      expect(await statusOf(world, 'check', runId)).toEqual(['parked', 'parked', 'parked']);
      const trail = await listMessages(world.engine.db, { runId, member: 'check' });
      expect(trail.items.map((m) => m.serviceJob?.status)).toEqual(['claimed', 'claimed', 'claimed']);
      const other = await startRun(world.engine, { meshId: plainId, input: { text: 'meanwhile' } });
      const plain = await waitForRun(world.engine.db, other.runId, { timeoutMs: 10_000 });
      expect(plain.status).toBe('done');
      expect((await waitForRun(world.engine.db, runId, { timeoutMs: 200 })).status).toBe('running');

      for (const job of jobs) {
        const text = (job?.payload as { text: string }).text;
        const status = text.startsWith('A') ? 'found' : 'unknown';
        const done = await completeJob(world.engine, { service: 'records-check', apiKey, jobId: job?.jobId ?? '', output: { text, status } });
        expect(done.duplicate).toBe(false);
      }
      const again = await completeJob(world.engine, { service: 'records-check', apiKey, jobId: jobs[0]?.jobId ?? '', output: { other: 1 } });
      expect(again.duplicate).toBe(true);
      const view = await waitForRun(world.engine.db, runId, { timeoutMs: 15_000 });
      expect(view.status).toBe('done');
      expect(view.output).toEqual({
        items: [{ line: 'A-1\n', status: 'found' }, { text: 'B-2\n', status: 'unknown' }, { line: 'A-3', status: 'found' }],
      });
      expect(await statusOf(world, 'check', runId)).toEqual(['done', 'done', 'done']);
    } finally {
      await runtime.close();
    }
  });

  it('refuses a wrong or missing key with a clear error', async () => {
    const world = await worlds.open();
    await addService(world.engine.db, { name: 'records-check' });
    await expect(claimJob(world.engine, { service: 'records-check', apiKey: 'trs_wrong' })).rejects.toThrow(ServiceUnauthorizedError);
    await expect(claimJob(world.engine, { service: 'records-check', apiKey: undefined })).rejects.toThrow(/no API key given/);
    await expect(claimJob(world.engine, { service: 'nobody', apiKey: 'trs_x' })).rejects.toThrow(/no service of that name/);
  });

  it('hands a job whose lease lapsed to the next claim, and a service failure fails the run naming the service', async () => {
    const world = await worlds.open();
    const { apiKey } = await addService(world.engine.db, { name: 'records-check' });
    const meshId = await saveOrThrow(world, SHORT_WAIT);
    const runtime = worlds.start(world, { pools: ['default'], concurrency: 1 });
    try {
      const { runId } = await startRun(world.engine, { meshId, input: { payload: { report: 'PR-1' } } });
      const first = await claimJob(world.engine, { service: 'records-check', apiKey, waitSeconds: 10, leaseSeconds: 1, worker: 'a' });
      expect(first?.attempt).toBe(1);
      // Still leased: nothing to claim.
      expect(await claimJob(world.engine, { service: 'records-check', apiKey })).toBeNull();
      await new Promise((r) => setTimeout(r, 1200));
      const second = await claimJob(world.engine, { service: 'records-check', apiKey, waitSeconds: 5, worker: 'b' });
      expect(second?.jobId).toBe(first?.jobId);
      expect(second?.attempt).toBe(2);
      const failed = await failJob(world.engine, { service: 'records-check', apiKey, jobId: second?.jobId ?? '', reason: 'the records system is closed' });
      expect(failed.status).toBe('failed');
      const view = await waitForRun(world.engine.db, runId, { timeoutMs: 5_000 });
      expect(view.status).toBe('failed');
      expect(view.cause).toBe('step_code_failed');
      expect(view.causeMessage).toContain('Records check');
      expect(view.causeMessage).toContain('outside service records-check failed the job: the records system is closed');

      // Re-opened: the job starts over (claims from 1) and an answer ends the run done.
      await reopenRun(world.engine, { runId, version: 'pinned' });
      const third = await claimJob(world.engine, { service: 'records-check', apiKey, waitSeconds: 10 });
      expect(third?.jobId).toBe(first?.jobId);
      expect(third?.attempt).toBe(1);
      await completeJob(world.engine, { service: 'records-check', apiKey, jobId: third?.jobId ?? '', output: { report: 'PR-1', found: true } });
      const reopened = await waitForRun(world.engine.db, runId, { timeoutMs: 5_000 });
      expect(reopened.status).toBe('done');
      expect(reopened.output).toEqual({ report: 'PR-1', found: true });
    } finally {
      await runtime.close();
    }
  });

  it('puts a job failed as retryable back for another claim, until claims run out', async () => {
    const world = await worlds.open({ attempts: 2 });
    const { apiKey } = await addService(world.engine.db, { name: 'records-check' });
    const meshId = await saveOrThrow(world, SHORT_WAIT);
    const runtime = worlds.start(world, { pools: ['default'], concurrency: 1 });
    try {
      const { runId } = await startRun(world.engine, { meshId, input: { payload: { report: 'PR-3' } } });
      const first = await claimJob(world.engine, { service: 'records-check', apiKey, waitSeconds: 10 });
      const back = await failJob(world.engine, { service: 'records-check', apiKey, jobId: first?.jobId ?? '', reason: 'busy', retryable: true });
      expect(back.status).toBe('waiting');
      const second = await claimJob(world.engine, { service: 'records-check', apiKey, waitSeconds: 5 });
      expect(second?.attempt).toBe(2);
      // Claims are used up (attempts 2): a retryable failure now fails the run.
      const last = await failJob(world.engine, { service: 'records-check', apiKey, jobId: second?.jobId ?? '', reason: 'still busy', retryable: true });
      expect(last.status).toBe('failed');
      const view = await waitForRun(world.engine.db, runId, { timeoutMs: 5_000 });
      expect(view.status).toBe('failed');
      expect(view.causeMessage).toContain('still busy');
    } finally {
      await runtime.close();
    }
  });

  it('fails a job nobody claims within the claim timeout with no_worker, from the orchestrator', async () => {
    const world = await worlds.open({ tickMs: 200 });
    await addService(world.engine.db, { name: 'records-check' });
    const meshId = await saveOrThrow(world, SHORT_WAIT);
    const runtime = worlds.start(world, { pools: ['default'], concurrency: 1 });
    try {
      const { runId } = await startRun(world.engine, { meshId, input: { payload: { report: 'PR-2' } } });
      for (let i = 0; i < 50 && (await statusOf(world, 'check', runId))[0] !== 'parked'; i++) await new Promise((r) => setTimeout(r, 100));
      const view = await waitForRun(world.engine.db, runId, { timeoutMs: 10_000 });
      expect(view.status).toBe('failed');
      expect(view.cause).toBe('no_worker');
      expect(view.causeMessage).toContain('no worker of outside service records-check claimed the job within 1 s');
      expect(await statusOf(world, 'check', runId)).toEqual(['dead']);
    } finally {
      await runtime.close();
    }
  });
});
