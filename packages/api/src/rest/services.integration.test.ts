import { describe, expect, it } from 'vitest';
import { createServiceClient, TrellisApiError } from '@trellis/sdk';
import { addService } from '@trellis/engine/services/registry';
import { addUser } from '@trellis/engine/users/add-user';
import { startRun } from '@trellis/engine/runs/start-run';
import { waitForRun } from '@trellis/engine/runs/wait-run';
import type { Engine } from '@trellis/engine/engine';
import { saveOrThrow, useWorlds } from '../../../engine/test/harness';
import { appRouter } from '../root';
import { handleRest, openApiDocument } from './routes';

const CHECKED = {
  format: 'trellis.mesh/v1',
  name: 'checked',
  members: [
    { id: 'check', kind: 'service', service: 'records-check', head: true, label: 'Records check' },
    { id: 'after', kind: 'workflow', steps: [{ type: 'map', fields: { report: 'report', found: 'records.found' } }] },
  ],
  channels: [{ from: 'check', to: 'after' }],
};

/** A `fetch` that hands requests to the REST dispatcher the web app's /api/v1 route calls. */
function routesFetch(engine: Engine): typeof fetch {
  return (input, init) => {
    const req = new Request(input instanceof Request ? input : String(input), init);
    return handleRest({ engine: () => Promise.resolve(engine), session: () => Promise.resolve(null) }, req);
  };
}

describe('service REST API with the sdk', () => {
  const worlds = useWorlds();

  it('serves parked jobs through the sdk loop and continues the run with the answers', async () => {
    const world = await worlds.open();
    const { apiKey } = await addService(world.engine.db, { name: 'records-check' });
    const meshId = await saveOrThrow(world, CHECKED);
    const runtime = worlds.start(world, { pools: ['default'], concurrency: 1 });
    const client = createServiceClient({ baseUrl: 'http://trellis.test', service: 'records-check', apiKey, fetch: routesFetch(world.engine) });
    const seen: string[] = [];
    const serving = client.serve(
      (job) => {
        const report = (job.payload as { report: string }).report;
        seen.push(report);
        return { report, records: { found: report === 'PR-1' } };
      },
      { waitSeconds: 2 },
    );
    try {
      const a = await startRun(world.engine, { meshId, input: { payload: { report: 'PR-1' } } });
      const b = await startRun(world.engine, { meshId, input: { payload: { report: 'PR-9' } } });
      const va = await waitForRun(world.engine.db, a.runId, { timeoutMs: 15_000 });
      const vb = await waitForRun(world.engine.db, b.runId, { timeoutMs: 15_000 });
      expect([va.status, vb.status]).toEqual(['done', 'done']);
      expect(va.output).toEqual({ report: 'PR-1', found: true });
      expect(vb.output).toEqual({ report: 'PR-9', found: false });
      expect(seen.sort()).toEqual(['PR-1', 'PR-9']);
    } finally {
      const t = Date.now();
      await serving.stop();
      expect(Date.now() - t).toBeLessThan(3_000);
      await runtime.close();
    }
  }, 60_000);

  it('answers 401 for a wrong or missing key, and 400 naming the field for a bad body', async () => {
    const world = await worlds.open();
    const { apiKey } = await addService(world.engine.db, { name: 'records-check' });
    const fetcher = routesFetch(world.engine);
    const wrong = createServiceClient({ baseUrl: 'http://trellis.test', service: 'records-check', apiKey: 'trs_wrong', fetch: fetcher });
    const err = await wrong.claim().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrellisApiError);
    expect((err as TrellisApiError).status).toBe(401);
    expect((err as TrellisApiError).code).toBe('service_unauthorized');

    const none = await fetcher('http://trellis.test/api/v1/services/records-check/claim', { method: 'POST' });
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ error: { code: 'service_unauthorized', message: expect.stringContaining('no API key given') as unknown } });

    const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const noOutput = await fetcher('http://trellis.test/api/v1/services/records-check/jobs/x/complete', { method: 'POST', headers: auth, body: '{}' });
    expect(noOutput.status).toBe(400);
    expect(((await noOutput.json()) as { error: { message: string } }).error.message).toContain('body.output');
    const noReason = await fetcher('http://trellis.test/api/v1/services/records-check/jobs/x/fail', { method: 'POST', headers: auth, body: '{"reason":" "}' });
    expect(noReason.status).toBe(400);
    expect(((await noReason.json()) as { error: { message: string } }).error.message).toContain('body.reason');
    const badWait = await fetcher('http://trellis.test/api/v1/services/records-check/claim?wait=99', { method: 'POST', headers: auth });
    expect(badWait.status).toBe(400);
    expect(((await badWait.json()) as { error: { message: string } }).error.message).toContain('query.wait');
    const missing = await fetcher('http://trellis.test/api/v1/services/records-check/jobs/nope/complete', { method: 'POST', headers: auth, body: '{"output":1}' });
    expect(missing.status).toBe(404);
  }, 60_000);

  it('lets an admin register a service over tRPC, whose key then claims', async () => {
    const world = await worlds.open();
    const ctx = { db: world.engine.db, engine: world.engine };
    const a = await addUser(world.engine.db, { email: 'a@x.test', role: 'admin', password: 'password-for-tests' });
    const d = await addUser(world.engine.db, { email: 'd@x.test', role: 'designer', password: 'password-for-tests' });
    const admin = appRouter.createCaller({ ...ctx, session: { userId: a.id, sessionVersion: 1 } });
    const member = appRouter.createCaller({ ...ctx, session: { userId: d.id, sessionVersion: 1 } });
    await expect(member.services.add({ name: 'records-check' })).rejects.toThrow(/refused by the role policy: services.add needs "admin"/);
    const { apiKey } = await admin.services.add({ name: 'records-check' });
    await expect(admin.services.add({ name: 'records-check' })).rejects.toThrow(/registered already/);
    expect((await member.services.list()).map((s) => [s.name, apiKey.startsWith(s.keyPrefix)])).toEqual([['records-check', true]]);
    const client = createServiceClient({ baseUrl: 'http://trellis.test', service: 'records-check', apiKey, fetch: routesFetch(world.engine) });
    expect(await client.claim()).toBeNull();
  }, 60_000);

  it('documents every REST route in an OpenAPI 3.1 document', () => {
    const doc = openApiDocument() as unknown as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/v1/admin/backup',
      '/api/v1/approvals/{id}/decision',
      '/api/v1/audit',
      '/api/v1/hooks/{id}',
      '/api/v1/meshes',
      '/api/v1/meshes/{id}/runs',
      '/api/v1/meshes/{id}/versions',
      '/api/v1/openapi.json',
      '/api/v1/runs',
      '/api/v1/runs/urgent',
      '/api/v1/runs/{id}',
      '/api/v1/runs/{id}/cancel',
      '/api/v1/runs/{id}/reopen',
      '/api/v1/runs/{id}/urgent',
      '/api/v1/services/{name}/claim',
      '/api/v1/services/{name}/jobs/{jobId}/complete',
      '/api/v1/services/{name}/jobs/{jobId}/fail',
    ]);
    const complete = JSON.stringify(doc.paths['/api/v1/services/{name}/jobs/{jobId}/complete']);
    expect(complete).toContain('"output"');
    expect(JSON.stringify(doc.paths['/api/v1/services/{name}/jobs/{jobId}/fail'])).toContain('"retryable"');
  });
});
