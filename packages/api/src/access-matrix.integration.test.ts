/**
 * The authorization matrix: every tRPC procedure (read from the router) and every REST route (read
 * from the route table) × every role, no session, a disabled user and an ended session → allowed or
 * refused. A procedure or route that is missing from EXPECTED_RULES, or whose rule differs, fails;
 * so does one built without a rule. "Allowed" means the access check let the call through: what the
 * handler then answers (often a 400 for the empty input sent here) does not matter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import type { AnyProcedure } from '@trpc/server';
import { openDb, type DbHandle } from '@trellis/db/client';
import { users } from '@trellis/db/schema/users';
import type { Engine } from '@trellis/engine/engine';
import { addUser } from '@trellis/engine/users/add-user';
import type { SessionClaims } from '@trellis/engine/users/session-user';
import type { AccessRule } from '@trellis/engine/users/roles';
import { appRouter } from './root';
import { REST_ROUTES, handleRest } from './rest/routes';
import type { AuthKind } from './rest/contract';
import type { AccessMeta } from './trpc';

/** The reviewed rule of every procedure and route. A new one fails the test until it is listed here. */
const EXPECTED_RULES: Record<string, AccessRule | 'service' | 'signed'> = {
  'meshes.list': 'read',
  'meshes.get': 'read',
  'meshes.validate': 'read',
  'meshes.create': 'design',
  'meshes.save': 'design',
  'meshes.import': 'design',
  'meshes.setPublished': 'design',
  'meshes.setUrgent': 'design',
  'meshes.versions': 'read',
  'meshes.restore': 'design',
  'runs.list': 'read',
  'runs.get': 'read',
  'runs.messages': 'read',
  'runs.attempts': 'read',
  'runs.timeline': 'read',
  'runs.reopenPreview': 'read',
  'runs.reopen': 'operate',
  'runs.cancel': 'operate',
  'runs.markUrgent': 'operate',
  'exceptions.feed': 'read',
  'services.list': 'read',
  'services.add': 'admin',
  'actions.list': 'read',
  'actions.people': 'read',
  'actions.act': 'operate',
  'actions.decide': 'operate',
  'assistant.ask': 'read',
  'users.list': 'admin',
  'users.add': 'admin',
  'users.setRole': 'admin',
  'users.setDisabled': 'admin',
  'users.remove': 'admin',
  'account.me': 'self',
  'account.changePassword': 'self',
  'tokens.list': 'self',
  'tokens.create': 'self',
  'tokens.createService': 'admin',
  'tokens.revoke': 'self',
  'audit.list': 'admin',
  'audit.verify': 'admin',
  'secrets.list': 'admin',
  'secrets.set': 'admin',
  'secrets.remove': 'admin',
  'egress.list': 'admin',
  'egress.allow': 'admin',
  'egress.remove': 'admin',
  'tools.list': 'admin',
  'tools.put': 'admin',
  'tools.remove': 'admin',
  'tools.calls': 'read',
  'webhooks.list': 'design',
  'webhooks.create': 'design',
  'webhooks.remove': 'design',
  'schedules.list': 'read',
  'schedules.create': 'design',
  'schedules.setEnabled': 'design',
  'schedules.remove': 'design',
  'GET /api/v1/meshes': 'read',
  'GET /api/v1/meshes/{id}/versions': 'read',
  'POST /api/v1/meshes/{id}/runs': 'run',
  'GET /api/v1/runs': 'read',
  'GET /api/v1/runs/{id}': 'read',
  'POST /api/v1/runs/{id}/cancel': 'operate',
  'POST /api/v1/runs/{id}/reopen': 'operate',
  'POST /api/v1/runs/urgent': 'operate',
  'POST /api/v1/runs/{id}/urgent': 'operate',
  'POST /api/v1/approvals/{id}/decision': 'operate',
  'POST /api/v1/hooks/{id}': 'signed',
  'POST /api/v1/services/{name}/claim': 'service',
  'POST /api/v1/services/{name}/jobs/{jobId}/complete': 'service',
  'POST /api/v1/services/{name}/jobs/{jobId}/fail': 'service',
  'GET /api/v1/audit': 'admin',
  'GET /api/v1/admin/backup': 'admin',
  'GET /api/v1/openapi.json': 'public',
};

/** Written out again (not imported from roles.ts), so a change to the policy table shows up here. */
const ALLOWED: Record<AccessRule | 'service' | 'signed', readonly string[]> = {
  public: ['admin', 'designer', 'operator', 'viewer', 'none', 'disabled', 'ended'],
  self: ['admin', 'designer', 'operator', 'viewer'],
  read: ['admin', 'designer', 'operator', 'viewer'],
  design: ['admin', 'designer'],
  run: ['admin', 'designer', 'operator'],
  operate: ['admin', 'operator'],
  admin: ['admin'],
  // Outside services use their own key; no person's session opens these.
  service: [],
  // Webhooks take a request signed with their own secret; no session or token opens them.
  signed: [],
};

const PRINCIPALS = ['admin', 'designer', 'operator', 'viewer', 'none', 'disabled', 'ended'] as const;
type Principal = (typeof PRINCIPALS)[number];

let handle: DbHandle;
const claims = new Map<Principal, SessionClaims | null>();

// Handlers that get past the access check may touch the engine; they learn nothing from it.
const REACHED = 'reached the handler';
function engineFor(db: DbHandle['db']): Engine {
  return new Proxy({} as Engine, {
    get: (_t, key) => {
      if (key === 'db') return db;
      if (key === 'then') return undefined;
      throw new Error(REACHED);
    },
  });
}

beforeAll(async () => {
  handle = await openDb({ dataDir: 'memory://' });
  await handle.migrate();
  for (const role of ['admin', 'designer', 'operator', 'viewer'] as const) {
    const u = await addUser(handle.db, { email: `${role}@matrix.test`, role, password: 'matrix-password' });
    claims.set(role, { userId: u.id, sessionVersion: 1 });
  }
  const disabled = await addUser(handle.db, { email: 'disabled@matrix.test', role: 'admin', password: 'matrix-password' });
  await handle.db.update(users).set({ disabledAt: new Date() }).where(eq(users.id, disabled.id));
  claims.set('disabled', { userId: disabled.id, sessionVersion: 1 });
  // An admin whose session was issued before a sign-out (the row's version moved on).
  const ended = await addUser(handle.db, { email: 'ended@matrix.test', role: 'admin', password: 'matrix-password' });
  await handle.db.update(users).set({ sessionVersion: sql`${users.sessionVersion} + 1` }).where(eq(users.id, ended.id));
  claims.set('ended', { userId: ended.id, sessionVersion: 1 });
  claims.set('none', null);
}, 180_000);
afterAll(async () => handle.close());

// `_def.procedures` is the flat record of every procedure by its dotted path (tRPC v11).
const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, AnyProcedure>);

/** Refused by the access check (401 or the role policy's 403), or let through. */
async function callProcedure(path: string, who: Principal): Promise<'allowed' | 'refused'> {
  const caller = appRouter.createCaller({ session: claims.get(who) ?? null, db: handle.db, engine: engineFor(handle.db) });
  const fn = path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller) as (input: unknown) => Promise<unknown>;
  try {
    await fn(undefined);
    return 'allowed';
  } catch (err) {
    const code = (err as { code?: string }).code;
    const message = err instanceof Error ? err.message : '';
    if (code === 'UNAUTHORIZED' || (code === 'FORBIDDEN' && message.startsWith('refused by the role policy'))) return 'refused';
    return 'allowed';
  }
}

async function callRoute(method: string, path: string, who: Principal): Promise<'allowed' | 'refused'> {
  const url = `http://matrix.test${path.replace(/\{\w+\}/g, 'x')}`;
  const res = await handleRest(
    { engine: () => Promise.resolve(engineFor(handle.db)), session: () => Promise.resolve(claims.get(who) ?? null) },
    new Request(url, { method: method.toUpperCase() }),
  );
  return res.status === 401 || res.status === 403 ? 'refused' : 'allowed';
}

describe('authorization matrix', () => {
  it('every procedure and route names a rule, and it is the reviewed one', () => {
    const actual: Record<string, AccessRule | AuthKind | undefined> = {};
    for (const [path, proc] of procedures) actual[path] = (proc._def.meta as AccessMeta | undefined)?.access;
    for (const route of REST_ROUTES) actual[`${route.method.toUpperCase()} ${route.path}`] = route.auth;
    expect(actual).toEqual(EXPECTED_RULES);
  });

  const cells = [
    ...procedures.map(([path]) => ({ name: path, call: (who: Principal) => callProcedure(path, who) })),
    ...REST_ROUTES.map((r) => ({ name: `${r.method.toUpperCase()} ${r.path}`, call: (who: Principal) => callRoute(r.method, r.path, who) })),
  ];

  it(`${cells.length} procedures and routes × ${PRINCIPALS.length} callers answer as the policy says`, async () => {
    const got: string[] = [];
    const want: string[] = [];
    for (const cell of cells) {
      const rule = EXPECTED_RULES[cell.name];
      for (const who of PRINCIPALS) {
        got.push(`${cell.name} × ${who}: ${await cell.call(who)}`);
        want.push(`${cell.name} × ${who}: ${rule !== undefined && ALLOWED[rule].includes(who) ? 'allowed' : 'refused'}`);
      }
    }
    expect(got).toEqual(want);
    process.stdout.write(`authorization matrix: ${cells.length} procedures and routes × ${PRINCIPALS.length} callers = ${got.length} cells\n`);
  }, 120_000);
});
