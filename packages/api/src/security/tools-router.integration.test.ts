// The tool registry's tRPC router: admins only, secrets by store name, bad settings named by field.
import { afterEach, describe, expect, it } from 'vitest';
import { TRPCError } from '@trpc/server';
import { addUser } from '@trellis/engine/users/add-user';
import { openWorld, type TestWorld } from '../../../engine/test/harness';
import { appRouter } from '../root';

/** A person of `role`, made in the world's database; the tRPC caller signs in as them. */
interface Person {
  email: string;
  role: 'admin' | 'designer';
}
const ADMIN: Person = { email: 'admin@x.test', role: 'admin' };
const MEMBER: Person = { email: 'member@x.test', role: 'designer' };

describe('tools router', () => {
  let world: TestWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  async function caller(person: Person) {
    world ??= await openWorld('postgres');
    const user = await addUser(world.engine.db, { ...person, password: 'a-password-1' });
    return appRouter.createCaller({ session: { userId: user.id, sessionVersion: 1 }, db: world.engine.db, engine: world.engine });
  }

  it('lets an admin register, list and remove a tool server; secrets stay names', async () => {
    const admin = await caller(ADMIN);
    const config = { transport: 'stdio' as const, command: '/usr/local/bin/search-mcp', args: ['--stdio'], secretEnv: { SEARCH_KEY: 'search_key' } };
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
    await expect(put).rejects.toThrow(/refused by the role policy: tools.put needs "admin"/);
    await expect(put).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(member.tools.list()).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('refuses a stdio server without a command and a URL that is not http(s), naming the field', async () => {
    const admin = await caller(ADMIN);
    await expect(admin.tools.put({ name: 'x', config: { transport: 'stdio', command: ' ' } as never })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(admin.tools.put({ name: 'x', config: { transport: 'http', url: 'file:///etc/passwd' } })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
