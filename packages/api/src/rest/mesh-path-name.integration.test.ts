/** A mesh path given a mesh's name instead of its id is refused with the id to use. */
import { describe, expect, it } from 'vitest';
import { addUser } from '@trellis/engine/users/add-user';
import { verifyCredentials } from '@trellis/engine/users/verify-credentials';
import { saveOrThrow, useWorlds, WORD_SPLIT } from '../../../engine/test/harness';
import { handleRest } from './routes';

describe('POST /api/v1/meshes/{name}/runs', () => {
  const worlds = useWorlds();

  it('answers 404 saying mesh paths take the id, and gives the id of the mesh so named', async () => {
    const world = await worlds.open();
    await addUser(world.engine.db, { email: 'designer@x.test', role: 'designer', password: 'pw-for-tests' });
    const user = await verifyCredentials(world.engine.db, { email: 'designer@x.test', password: 'pw-for-tests' });
    if (!user) throw new Error('no designer');
    const meshId = await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
    const post = (path: string) =>
      handleRest(
        { engine: () => Promise.resolve(world.engine), session: () => Promise.resolve({ userId: user.id, sessionVersion: user.sessionVersion }) },
        new Request(`http://t.test${path}`, { method: 'POST', body: 'one two', headers: { 'content-type': 'text/plain' } }),
      );
    const byName = await post('/api/v1/meshes/word-split/runs');
    expect(byName.status).toBe(404);
    expect(await byName.json()).toEqual({
      error: { code: 'mesh_not_found', message: `no mesh with id word-split: mesh paths take the mesh id; word-split is a mesh name: its id is ${meshId}` },
    });
    const unknown = await post('/api/v1/meshes/no-such-mesh/runs');
    expect(await unknown.json()).toEqual({ error: { code: 'mesh_not_found', message: 'no mesh no-such-mesh' } });
  }, 60_000);
});
