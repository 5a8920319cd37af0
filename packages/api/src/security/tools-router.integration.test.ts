// The tool registry's tRPC router: admins only, secrets by store name, bad settings named by field.
import { afterEach, describe, expect, it } from 'vitest';
import { TRPCError } from '@trpc/server';
import type { SignedInUser } from '@trellis/engine/users/verify-credentials';
import { openWorld, type TestWorld } from '../../../engine/test/harness';
import { appRouter } from '../root';

const ADMIN: SignedInUser = { id: 'u-admin', email: 'admin@x', name: 'Admin', role: 'admin' };
const MEMBER: SignedInUser = { id: 'u-member', email: 'member@x', name: 'Member', role: 'member' };

describe('tools router', () => {
  let world: TestWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  async function caller(user: SignedInUser) {
    world ??= await openWorld('postgres');
    return appRouter.createCaller({ user, db: world.engine.db, engine: world.engine });
  }

  it('lets an admin register, list and remove a tool server; secrets stay names', async () => {
    const admin = await caller(ADMIN);
    const config = { transport: 'stdio' as const, command: '/usr/local/bin/search-mcp', args: ['--stdio'], secretEnv: { SEARCH_KEY: 'search-key' } };
    const saved = await admin.tools.put({ name: 'search', config });
    expect(saved.config).toEqual({ ...config, env: {} });
    expect((await admin.tools.list()).map((t) => t.name)).toEqual(['search']);
    expect(await admin.tools.remove({ name: 'search' })).toEqual({ removed: true });
    expect(await admin.tools.list()).toEqual([]);
  });

  it('refuses a signed-in member who is not an admin, naming the policy', async () => {
    const member = await caller(MEMBER);
    const put = member.tools.put({ name: 'search', config: { transport: 'http', url: 'https://tools.example.com/mcp' } });
    await expect(put).rejects.toBeInstanceOf(TRPCError);
    await expect(put).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'only an admin may manage the tool registry' });
    await expect(member.tools.list()).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('refuses a stdio server without a command and a URL that is not http(s), naming the field', async () => {
    const admin = await caller(ADMIN);
    await expect(admin.tools.put({ name: 'x', config: { transport: 'stdio', command: ' ' } as never })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(admin.tools.put({ name: 'x', config: { transport: 'http', url: 'file:///etc/passwd' } })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
