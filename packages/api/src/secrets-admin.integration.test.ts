/**
 * The admin surfaces of issue 11 over tRPC: only admins manage secrets, connections and the egress
 * policy, and nothing ever answers a secret's value (docs/security.md).
 */
import { describe, expect, it } from 'vitest';
import { addUser } from '@trellis/engine/users/add-user';
import { useWorlds } from '../../engine/test/harness';
import { describeApiError } from './errors';
import { appRouter } from './root';

describe('secrets and egress over tRPC', () => {
  const worlds = useWorlds();

  it('refuses members, stores for admins, and never answers a value', async () => {
    const world = await worlds.open();
    const ctx = { db: world.engine.db, engine: world.engine };
    const a = await addUser(world.engine.db, { email: 'a@x.test', role: 'admin', password: 'a-password-1' });
    const m = await addUser(world.engine.db, { email: 'm@x.test', role: 'designer', password: 'a-password-1' });
    const admin = appRouter.createCaller({ ...ctx, session: { userId: a.id, sessionVersion: 1 } });
    const member = appRouter.createCaller({ ...ctx, session: { userId: m.id, sessionVersion: 1 } });
    await expect(member.secrets.set({ name: 'CRM_TOKEN', value: 'Bearer v4lue', hosts: ['api.crm.example'] })).rejects.toThrow(/refused by the role policy/);
    await expect(member.secrets.list({})).rejects.toThrow(/refused by the role policy/);
    await expect(member.egress.allow({ pattern: '127.0.0.1', internal: true })).rejects.toThrow(/refused by the role policy/);

    const stored = await admin.secrets.set({ name: 'CRM_TOKEN', value: 'Bearer v4lue', hosts: ['api.crm.example'] });
    expect(JSON.stringify(stored)).not.toContain('v4lue');
    const listed = await admin.secrets.list({});
    expect(listed.map((s) => [s.name, s.hosts, s.updatedBy])).toEqual([['CRM_TOKEN', ['api.crm.example'], a.id]]);
    expect(JSON.stringify(listed)).not.toContain('v4lue');
    await expect(admin.secrets.set({ name: 'NO_HOSTS', value: 'x' })).rejects.toThrow(/hosts of NO_HOSTS: list at least one host/);
    // Bad input is a 400 naming the field, never an internal error.
    const badHost = await admin.secrets.set({ name: 'BAD', value: 'x', hosts: ['http://a.example/x'] }).catch((err: unknown) => err);
    expect(describeApiError(badHost)).toMatchObject({ httpStatus: 400, message: expect.stringMatching(/^hosts: "http:\/\/a.example\/x" is not a host/) as unknown });
    const forTool = await admin.secrets.set({ name: 'SEARCH_KEY', value: 'sk-search', hosts: ['tool:search', 'Tool:Docs'] });
    expect(forTool.hosts).toEqual(['tool:search', 'tool:Docs']);
    await expect(admin.secrets.set({ kind: 'connection', name: 'CRM_DB', value: 'mysql://x' })).rejects.toThrow(/expected a postgres:\/\/ URL/);
    expect(await admin.secrets.remove({ name: 'CRM_TOKEN' })).toEqual({ removed: true });

    expect((await admin.egress.list()).inForce).toEqual(['*']);
    await admin.egress.allow({ pattern: 'api.crm.example' });
    expect((await admin.egress.list()).inForce).toEqual(['api.crm.example']);
    const wildcard = await admin.egress.allow({ pattern: '*.example', internal: true }).catch((err: unknown) => err);
    expect(describeApiError(wildcard)).toMatchObject({ httpStatus: 400, message: expect.stringMatching(/^internal: only an exact host/) as unknown });
  }, 30_000);
});
