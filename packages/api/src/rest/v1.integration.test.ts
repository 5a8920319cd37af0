/**
 * REST v1 end to end, against real Postgres and Redis, through the sdk's run client with API
 * tokens: start a run (JSON, bytes, form data), read its answer, the same Idempotency-Key, the Runs
 * tab filters, cancel, an approval decided and a rejected run re-opened, meshes and versions; and
 * bad requests refused with the one error shape.
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { rows } from '@trellis/engine/sql';
import type { Engine } from '@trellis/engine/engine';
import { addUser } from '@trellis/engine/users/add-user';
import { createPersonalToken } from '@trellis/engine/tokens/create-token';
import { createRunClient, type RunClient } from '@trellis/sdk/runs';
import { TrellisApiError } from '@trellis/sdk';
import { saveOrThrow, useWorlds, WORD_SPLIT } from '../../../engine/test/harness';
import { handleRest } from './routes';

const GATED = {
  format: 'trellis.mesh/v1',
  name: 'gated',
  members: [
    { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
    { id: 'review', kind: 'workflow', approval: 'required', steps: [{ type: 'pass' }] },
  ],
  channels: [{ from: 'head', to: 'review' }],
};

async function clientFor(engine: Engine, role: 'admin' | 'operator' | 'viewer' | 'designer', scope: string): Promise<{ client: RunClient; fetch: typeof fetch; auth: string }> {
  const user = await addUser(engine.db, { email: `${role}-${scope}@v1.test`, role, password: 'v1-test-password' });
  const { token } = await createPersonalToken(engine.db, { id: user.id, email: `${role}-${scope}@v1.test`, role }, { name: 't', scope, expiresInDays: 1 });
  const doFetch: typeof fetch = (input, init) =>
    handleRest({ engine: () => Promise.resolve(engine), session: () => Promise.resolve(null) }, new Request(input instanceof Request ? input : String(input), init));
  return { client: createRunClient({ baseUrl: 'http://t.test', token, fetch: doFetch }), fetch: doFetch, auth: `Bearer ${token}` };
}

async function refusal(p: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof TrellisApiError)) throw new Error(`expected an API error, got ${String(err)}`);
  return { status: err.status, code: err.code, message: err.message };
}

describe('REST API v1 with API tokens', () => {
  const worlds = useWorlds();

  it('starts runs on JSON, bytes and form data, answers them, and keeps one run per Idempotency-Key', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
    worlds.start(world, { pools: ['default'], concurrency: 4 });
    const { client, fetch: raw, auth } = await clientFor(world.engine, 'designer', 'run');

    const started = await client.startRun(meshId, { json: { text: 'one two' } }, { idempotencyKey: 'order-1' });
    expect(started).toMatchObject({ status: 'running', reused: false });
    const answer = await client.getRun(started.runId, { waitSeconds: 20 });
    expect(answer).toMatchObject({ runId: started.runId, status: 'done', ended: true, cause: null, output: { text: 'one two' }, meshName: 'word-split' });
    expect(answer.counts.done).toBe(answer.counts.published);
    expect(await client.startRun(meshId, { json: { text: 'one two' } }, { idempotencyKey: 'order-1' })).toEqual({ runId: started.runId, status: 'done', reused: true });
    expect(await refusal(client.startRun(meshId, { json: { text: 'other' } }, { idempotencyKey: 'order-1' }))).toMatchObject({ status: 409, code: 'idempotency_key_reused' });

    const bytes = await client.startRun(meshId, { text: 'from bytes', fileName: 'a doc.txt' }, { version: 1 });
    const form = new FormData();
    form.set('file', new File(['from a form'], 'form.txt'));
    const viaForm = await raw(`http://t.test/api/v1/meshes/${meshId}/runs`, { method: 'POST', body: form, headers: { authorization: auth } });
    expect(viaForm.status).toBe(201);
    const formRun = ((await viaForm.json()) as { runId: string }).runId;
    expect((await client.getRun(bytes.runId, { waitSeconds: 20 })).output).toEqual({ text: 'from bytes' });
    expect((await client.getRun(formRun, { waitSeconds: 20 })).output).toEqual({ text: 'from a form' });

    const listed = await client.listRuns({ meshId, status: 'done', search: 'a doc' });
    expect(listed.items.map((r) => r.id)).toEqual([bytes.runId]);
    expect(listed.items[0]).toMatchObject({ inputName: 'a doc.txt', severity: null });
    expect((await client.listRuns({ meshId })).total).toBe(3);

    const meshes = await client.listMeshes();
    expect(meshes.items.map((m) => [m.name, m.latestVersion])).toEqual([['word-split', 1]]);
    expect((await client.meshVersions(meshId)).versions.map((v) => v.version)).toEqual([1]);
    const entries = await rows<{ entry: string }>(world.engine.db, sql`select entry from run_entries order by created_at`);
    expect(entries.map((e) => e.entry)).toEqual(['rest', 'rest', 'rest']);
  }, 90_000);

  it('refuses bad requests with the one error shape', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
    const { client, fetch: raw, auth } = await clientFor(world.engine, 'designer', 'run');
    const viewer = (await clientFor(world.engine, 'viewer', 'read')).client;
    const badJson = await raw(`http://t.test/api/v1/meshes/${meshId}/runs`, { method: 'POST', body: '{"text":', headers: { authorization: auth, 'content-type': 'application/json' } });
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toEqual({ error: { code: 'bad_input', message: 'body: not valid JSON (send a JSON object, or another Content-Type for a document)' } });
    expect(await refusal(client.startRun(meshId, { bytes: new Uint8Array([0x61, 0xff]) }))).toMatchObject({ status: 400, code: 'input_rejected' });
    expect(await refusal(client.startRun(meshId, { json: [1, 2] as unknown as Record<string, unknown> }))).toEqual({ status: 400, code: 'input_rejected', message: 'the input was refused: a payload must be a JSON object' });
    expect(await refusal(client.startRun('no-such-mesh', { json: {} }))).toMatchObject({ status: 404, code: 'mesh_not_found' });
    expect(await refusal(viewer.startRun(meshId, { json: {} }))).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await refusal(client.listRuns({ limit: 500 }))).toMatchObject({ status: 400, code: 'bad_input' });
    expect(await refusal(client.getRun('nope'))).toMatchObject({ status: 404, code: 'run_not_found' });
    expect(await refusal(client.getRun('nope', { waitSeconds: 61 }))).toMatchObject({ status: 400, code: 'bad_input' });
    expect(await refusal(createRunClient({ baseUrl: 'http://t.test', token: 'trl_wrong', fetch: raw }).listMeshes())).toMatchObject({ status: 401 });
  }, 60_000);

  it('cancels a run, decides an approval, and re-opens a rejected run', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, GATED);
    worlds.start(world, { pools: ['default'], concurrency: 4 });
    const { client } = await clientFor(world.engine, 'operator', 'operate');
    const designer = (await clientFor(world.engine, 'designer', 'run')).client;
    const approvalOf = async (runId: string) => {
      for (;;) {
        const [row] = await rows<{ id: string }>(world.engine.db, sql`select id from approvals where run_id = ${runId} and status = 'pending'`);
        if (row) return row.id;
        await new Promise((r) => setTimeout(r, 50));
      }
    };

    const toCancel = await client.startRun(meshId, { json: { n: 1 } });
    await approvalOf(toCancel.runId);
    // Marking urgent is an operator's action too; an open run is marked, an ended one refused.
    expect(await refusal(designer.markUrgent(toCancel.runId))).toMatchObject({ status: 403 });
    expect(await client.markUrgent(toCancel.runId)).toEqual({ marked: [toCancel.runId], refused: [], moved: 0 });
    const [flag] = await rows<{ urgent: boolean }>(world.engine.db, sql`select urgent from runs where id = ${toCancel.runId}`);
    expect(flag?.urgent).toBe(true);
    expect(await refusal(designer.cancelRun(toCancel.runId))).toMatchObject({ status: 403 });
    expect(await client.cancelRun(toCancel.runId, 'not needed')).toMatchObject({ runId: toCancel.runId, status: 'cancelled' });
    expect((await client.getRun(toCancel.runId)).status).toBe('cancelled');
    expect(await refusal(client.cancelRun(toCancel.runId))).toMatchObject({ status: 409 });
    expect(await refusal(client.markUrgent(toCancel.runId))).toMatchObject({ status: 409 });
    expect(await client.markUrgent([toCancel.runId])).toEqual({ marked: [], refused: [{ runId: toCancel.runId, reason: 'it has already ended (cancelled)' }], moved: 0 });
    expect(await refusal(client.markUrgent([]))).toMatchObject({ status: 400 });

    const approved = await client.startRun(meshId, { json: { n: 2 } });
    expect(await client.decideApproval(await approvalOf(approved.runId), 'approve')).toMatchObject({ runId: approved.runId, status: 'approved' });
    expect(await client.getRun(approved.runId, { waitSeconds: 20 })).toMatchObject({ status: 'done', output: { n: 2 } });

    const rejected = await client.startRun(meshId, { json: { n: 3 } });
    const approval = await approvalOf(rejected.runId);
    expect(await refusal(client.decideApproval(approval, 'reject'))).toMatchObject({ status: 409 });
    await client.decideApproval(approval, 'reject', 'wrong claim');
    expect(await client.getRun(rejected.runId, { waitSeconds: 20 })).toMatchObject({ status: 'failed', cause: 'input_rejected' });
    expect(await client.reopenRun(rejected.runId)).toMatchObject({ runId: rejected.runId, attempt: 2, members: ['review'] });
    await client.decideApproval(await approvalOf(rejected.runId), 'approve');
    expect(await client.getRun(rejected.runId, { waitSeconds: 20 })).toMatchObject({ status: 'done', output: { n: 3 } });
  }, 90_000);
});

