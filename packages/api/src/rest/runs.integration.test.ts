import { describe, expect, it } from 'vitest';
import { getRun } from '@trellis/engine/runs/get-run';
import { waitForRun } from '@trellis/engine/runs/wait-run';
import type { Engine } from '@trellis/engine/engine';
import { ensureAdmin } from '@trellis/engine/users/ensure-admin';
import { verifyCredentials, type SignedInUser } from '@trellis/engine/users/verify-credentials';
import { saveOrThrow, useWorlds, WORD_SPLIT } from '../../../engine/test/harness';
import { handleRest } from './routes';

async function admin(engine: Engine): Promise<SignedInUser> {
  await ensureAdmin(engine.db, { email: 'admin@x.test', password: 'pw-for-tests' });
  const user = await verifyCredentials(engine.db, { email: 'admin@x.test', password: 'pw-for-tests' });
  if (!user) throw new Error('no admin');
  return user;
}

describe('POST /api/v1/meshes/{id}/runs', () => {
  const worlds = useWorlds();

  it('starts a run on raw bytes or form data, on the latest or a named version, for the signed-in person', async () => {
    const world = await worlds.open();
    const user = await admin(world.engine);
    const meshId = await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
    const runtime = worlds.start(world, { pools: ['default'], concurrency: 4 });
    const post = (path: string, init: RequestInit) =>
      handleRest({ engine: () => Promise.resolve(world.engine), user: () => Promise.resolve(user) }, new Request(`http://t.test${path}`, { method: 'POST', ...init }));
    try {
      const raw = await post(`/api/v1/meshes/${meshId}/runs`, { body: 'one two three', headers: { 'content-type': 'text/plain', 'x-file-name': encodeURIComponent('a doc.txt') } });
      expect(raw.status).toBe(201);
      const { runId } = (await raw.json()) as { runId: string };
      expect(raw.headers.get('location')).toBe(`/runs/${runId}`);
      expect((await waitForRun(world.engine.db, runId, { timeoutMs: 20_000 })).output).toEqual({ text: 'one two three' });
      expect(await getRun(world.engine.db, runId)).toMatchObject({ inputName: 'a doc.txt', createdBy: user.id, meshVersion: 1 });

      const form = new FormData();
      form.set('file', new File(['from a form'], 'form.txt'));
      const viaForm = await post(`/api/v1/meshes/${meshId}/runs?version=1`, { body: form });
      expect(viaForm.status).toBe(201);
      const formRun = ((await viaForm.json()) as { runId: string }).runId;
      expect(await getRun(world.engine.db, formRun)).toMatchObject({ inputName: 'form.txt' });

      const noVersion = await post(`/api/v1/meshes/${meshId}/runs?version=7`, { body: 'x' });
      expect(noVersion.status).toBe(404);
      const badVersion = await post(`/api/v1/meshes/${meshId}/runs?version=1.5`, { body: 'x' });
      expect(badVersion.status).toBe(400);
      expect(await badVersion.json()).toEqual({ error: { code: 'bad_input', message: 'query.version: must be a positive whole number' } });
      const noMesh = await post('/api/v1/meshes/00000000-0000-0000-0000-000000000000/runs', { body: 'x' });
      expect(noMesh.status).toBe(404);
      expect(((await noMesh.json()) as { error: { code: string } }).error.code).toBe('mesh_not_found');
      const notText = await post(`/api/v1/meshes/${meshId}/runs`, { body: new Uint8Array([0x61, 0xff, 0x62]) });
      expect(notText.status).toBe(400);
      expect(((await notText.json()) as { error: { code: string } }).error.code).toBe('input_rejected');
    } finally {
      await runtime.close();
    }
  }, 60_000);
});
