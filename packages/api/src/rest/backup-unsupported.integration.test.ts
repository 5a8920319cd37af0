// GET /api/v1/admin/backup on Postgres answers 409 with the pg_dump advice, also when the database
// handle comes from another copy of @trellis/db than the route's: the web server's startup hook opens
// the database from one bundle and its routes run from another, so the error class differs.
import { describe, expect, it, vi } from 'vitest';
import { SnapshotUnsupportedError, type DbHandle } from '@trellis/db/client';
import { createPersonalToken } from '@trellis/engine/tokens/create-token';
import { addUser } from '@trellis/engine/users/add-user';
import { useWorlds, type TestWorld } from '../../../engine/test/harness';
import { handleRest } from './routes';

async function adminToken(world: TestWorld): Promise<string> {
  const admin = await addUser(world.engine.db, { email: 'admin@backup-pg.test', role: 'admin', password: 'backup-test-password' });
  return (await createPersonalToken(world.engine.db, { id: admin.id, email: admin.email, role: 'admin' }, { name: 'backup', scope: 'admin', expiresInDays: 1 })).token;
}

async function askBackup(world: TestWorld, handle: DbHandle, token: string): Promise<{ status: number; body: { error: { code: string; message: string } } }> {
  const env = { engine: () => Promise.resolve(world.engine), session: () => Promise.resolve(null), database: () => Promise.resolve(handle) };
  const answer = await handleRest(env, new Request('http://trellis.test/api/v1/admin/backup', { headers: { authorization: `Bearer ${token}` } }));
  return { status: answer.status, body: (await answer.json()) as { error: { code: string; message: string } } };
}

describe('backup on Postgres', () => {
  const worlds = useWorlds();

  it('answers 409 naming pg_dump for the Postgres handle itself', async () => {
    const world = await worlds.open();
    expect(world.handle.kind).toBe('postgres');
    const { status, body } = await askBackup(world, world.handle, await adminToken(world));
    expect(status).toBe(409);
    expect(body.error.code).toBe('backup_unsupported');
    expect(body.error.message).toContain('pg_dump');
  });

  it('answers 409 when the refusal is made by a second copy of the database module', async () => {
    const world = await worlds.open();
    const token = await adminToken(world);
    vi.resetModules();
    const second = await import('@trellis/db/client');
    const foreign = new second.SnapshotUnsupportedError();
    // The route's copy (loaded with this file) does not recognise it by `instanceof`.
    expect(foreign).not.toBeInstanceOf(SnapshotUnsupportedError);
    const handle: DbHandle = { ...world.handle, snapshot: () => Promise.reject(foreign) };
    const { status, body } = await askBackup(world, handle, token);
    expect(status).toBe(409);
    expect(body.error.code).toBe('backup_unsupported');
    expect(body.error.message).toContain('pg_dump');
  });
});
