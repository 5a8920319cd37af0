/**
 * API tokens on REST and the live-updates check: shown once, stored as a SHA-256, limited by scope
 * and by the owner's role, and refused once revoked, expired, or when the owner is disabled.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { openDb, type DbHandle } from '@trellis/db/client';
import { apiTokens } from '@trellis/db/schema/api-tokens';
import type { Engine } from '@trellis/engine/engine';
import { addUser } from '@trellis/engine/users/add-user';
import { setUserDisabled, setUserRole } from '@trellis/engine/users/change-user';
import { appRouter } from './root';
import { authorizeCaller } from './rest/caller';
import { handleRest } from './rest/routes';

let handle: DbHandle;
const ids: Record<string, string> = {};
beforeAll(async () => {
  handle = await openDb({ dataDir: 'memory://' });
  await handle.migrate();
  for (const role of ['admin', 'designer', 'viewer'] as const) ids[role] = (await addUser(handle.db, { email: `${role}@t.test`, role, password: 'token-password' })).id;
}, 180_000);
afterAll(async () => handle.close());

const engine = () => ({ db: handle.db }) as unknown as Engine;
const as = (who: string) => appRouter.createCaller({ session: { userId: ids[who] ?? '', sessionVersion: 1 }, db: handle.db, engine: engine() });

/** Starts a run of a mesh that does not exist: 404 once the access check let the token through. */
async function startRun(token: string): Promise<{ status: number; message: string }> {
  const res = await handleRest(
    { engine: () => Promise.resolve(engine()), session: () => Promise.resolve(null) },
    new Request('http://t.test/api/v1/meshes/nope/runs', { method: 'POST', body: 'x', headers: { authorization: `Bearer ${token}`, origin: 'https://elsewhere.example' } }),
  );
  return { status: res.status, message: ((await res.json()) as { error?: { message: string } }).error?.message ?? '' };
}

describe('API tokens', () => {
  it('are shown once, stored as a SHA-256, and let a script start runs with Bearer', async () => {
    const created = await as('designer').tokens.create({ name: 'ci', scope: 'run', expiresInDays: 30 });
    expect(created.token).toMatch(/^trl_[A-Za-z0-9_-]{43}$/);
    const [row] = await handle.db.select().from(apiTokens).where(eq(apiTokens.id, created.id));
    expect(row?.tokenHash).toBe(createHash('sha256').update(created.token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(created.token.slice(4));
    expect(row?.lastUsedAt).toBeNull();
    // A bearer token carries no cookie, so no Origin check: 404 is the handler's answer.
    expect(await startRun(created.token)).toMatchObject({ status: 404 });
    const [used] = await handle.db.select().from(apiTokens).where(eq(apiTokens.id, created.id));
    expect(used?.lastUsedAt).toBeInstanceOf(Date);
    const listed = await as('designer').tokens.list();
    expect(listed.map((t) => [t.name, t.prefix, t.scope])).toEqual([['ci', created.token.slice(0, 12), 'run']]);
    expect(JSON.stringify(listed)).not.toContain(created.token);
  });

  it('stay within the creator role and the token scope', async () => {
    await expect(as('viewer').tokens.create({ name: 'x', scope: 'run', expiresInDays: 1 })).rejects.toThrow(
      `refused by the token policy: a viewer's tokens may have scope "read" at most, not "run"`,
    );
    const read = await as('viewer').tokens.create({ name: 'dash', scope: 'read', expiresInDays: 1 });
    expect(await startRun(read.token)).toEqual({ status: 403, message: 'refused by the role policy: POST /api/v1/meshes/{id}/runs needs "run" (admin, designer, operator); you are viewer' });
    const adminRead = await as('admin').tokens.create({ name: 'dash', scope: 'read', expiresInDays: 1 });
    expect(await startRun(adminRead.token)).toEqual({ status: 403, message: 'refused by the token policy: POST /api/v1/meshes/{id}/runs needs scope "run"; this token has "read"' });
    const get = new Request('http://t.test/api/events', { headers: { authorization: `Bearer ${read.token}` } });
    expect(await authorizeCaller(handle.db, get, () => Promise.resolve(null), 'read', 'GET /api/events')).toMatchObject({ role: 'viewer' });
  });

  it('stop working when revoked, expired, or when the owner is disabled or loses the role', async () => {
    const t = async () => (await as('designer').tokens.create({ name: 'n', scope: 'run', expiresInDays: 1 })).token;
    const revoked = await t();
    const expired = await t();
    const demoted = await t();
    const [r] = await handle.db.select().from(apiTokens).where(eq(apiTokens.prefix, revoked.slice(0, 12)));
    await as('designer').tokens.revoke({ id: r?.id ?? '' });
    expect(await startRun(revoked)).toEqual({ status: 401, message: 'the API token is unknown, revoked or expired' });
    await expect(as('viewer').tokens.revoke({ id: r?.id ?? '' })).rejects.toThrow(/no token .* of yours/);
    await handle.db.update(apiTokens).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(apiTokens.prefix, expired.slice(0, 12)));
    expect((await startRun(expired)).status).toBe(401);
    expect((await startRun('trl_not-a-token')).status).toBe(401);
    await setUserRole(handle.db, ids.designer ?? '', 'viewer');
    expect((await startRun(demoted)).status).toBe(403);
    await setUserRole(handle.db, ids.designer ?? '', 'designer');
    await setUserDisabled(handle.db, ids.designer ?? '', true);
    expect((await startRun(demoted)).status).toBe(401);
  });

  it('let an admin make a service account token, which others may not', async () => {
    const svc = await appRouter
      .createCaller({ session: { userId: ids.admin ?? '', sessionVersion: 1 }, db: handle.db, engine: engine() })
      .tokens.createService({ account: 'nightly-import', role: 'operator', name: 'nightly', scope: 'run', expiresInDays: null });
    expect(svc).toMatchObject({ account: 'nightly-import', expiresAt: null });
    expect((await startRun(svc.token)).status).toBe(404);
    await expect(as('viewer').tokens.createService({ account: 'x', role: 'admin', name: 'x', scope: 'admin', expiresInDays: 1 })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await as('admin').tokens.list({ all: true })).map((t) => [t.owner, t.ownerKind]).slice(0, 1)).toEqual([['nightly-import@service.trellis', 'service']]);
  });
});
