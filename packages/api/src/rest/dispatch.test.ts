import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type DbHandle } from '@trellis/db/client';
import { z } from 'zod';
import { RedisUnreachableError, RunNotFoundError } from '@trellis/engine/errors';
import type { Engine } from '@trellis/engine/engine';
import { addUser } from '@trellis/engine/users/add-user';
import type { SessionClaims } from '@trellis/engine/users/session-user';
import { defineRoute, type RestEnv, type RouteSpec } from './contract';
import { dispatchRest } from './dispatch';
import { REST_ROUTES } from './routes';

let handle: DbHandle;
let session: SessionClaims;
beforeAll(async () => {
  handle = await openDb({ dataDir: 'memory://' });
  await handle.migrate();
  const user = await addUser(handle.db, { email: 'a@x.test', role: 'operator', password: 'password-for-tests' });
  session = { userId: user.id, sessionVersion: 1 };
}, 180_000);
afterAll(async () => handle.close());

const echo = defineRoute({
  method: 'post',
  path: '/api/v1/things/{id}/echo',
  summary: 'Echo.',
  auth: 'run',
  params: z.object({ id: z.string() }),
  query: z.object({ n: z.coerce.number().int().min(1).optional() }),
  body: { kind: 'json', schema: z.object({ word: z.string().min(1) }).strict(), required: true },
  response: { status: 201, description: 'Echoed.', schema: z.object({ id: z.string(), word: z.string(), n: z.number().optional(), user: z.string() }) },
  errors: { 400: 'Bad.', 401: 'Not signed in.' },
  headersOf: ({ id }) => ({ Location: `/things/${id}` }),
  handle: ({ params, query, body, user }) => Promise.resolve({ id: params.id, word: body.word, ...query, user: user.email }),
});

const upload = defineRoute({
  method: 'post',
  path: '/api/v1/upload',
  summary: 'Upload.',
  auth: 'public',
  body: { kind: 'file', description: 'A file.' },
  response: { status: 200, description: 'What came.', schema: z.object({ name: z.string().nullable(), text: z.string() }) },
  errors: {},
  handle: ({ body }) => Promise.resolve({ name: body.name ?? null, text: new TextDecoder().decode(body.bytes) }),
});

const missing = defineRoute({
  method: 'get',
  path: '/api/v1/missing',
  summary: 'Throws.',
  auth: 'public',
  response: { status: 200, description: 'Never.', schema: z.object({}) },
  errors: { 404: 'Always.' },
  handle: async ({ engine }) => {
    await engine();
    throw new RunNotFoundError('r9');
  },
});

const ROUTES: RouteSpec[] = [echo, upload, missing];

function env(over: Partial<RestEnv> = {}): RestEnv {
  return { engine: () => Promise.resolve({ db: handle.db } as unknown as Engine), session: () => Promise.resolve(session), ...over };
}

const call = (init: RequestInit & { path: string }, e = env()) => dispatchRest(e, ROUTES, new Request(`http://t.test${init.path}`, init));
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

describe('REST dispatcher', () => {
  it('checks path, query and body against the route and answers with its status and headers', async () => {
    const res = await call({ path: '/api/v1/things/a%2Fb/echo?n=3', method: 'POST', body: '{"word":"hi"}' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/things/a/b');
    expect(await res.json()).toEqual({ id: 'a/b', word: 'hi', n: 3, user: 'a@x.test' });
  });

  it('names the part and field of bad input', async () => {
    const q = await call({ path: '/api/v1/things/x/echo?n=0', method: 'POST', body: '{"word":"hi"}' });
    expect(q.status).toBe(400);
    expect(await errorOf(q)).toMatchObject({ code: 'bad_input', message: expect.stringMatching(/^query\.n: /) as unknown });
    const b = await call({ path: '/api/v1/things/x/echo', method: 'POST', body: '{"word":"","extra":1}' });
    expect((await errorOf(b)).message).toMatch(/body\.word: .*; body: /);
    expect((await errorOf(await call({ path: '/api/v1/things/x/echo', method: 'POST', body: '{' }))).message).toBe('body: not valid JSON');
    expect((await errorOf(await call({ path: '/api/v1/things/x/echo', method: 'POST' }))).message).toBe('body: expected a JSON object');
  });

  it('refuses a signed-in route without a session, or with a role the rule leaves out, before reading anything else', async () => {
    const res = await call({ path: '/api/v1/things/x/echo?n=zero', method: 'POST', body: '{' }, env({ session: () => Promise.resolve(null) }));
    expect(res.status).toBe(401);
    expect(await errorOf(res)).toEqual({ code: 'unauthorized', message: 'sign in to continue' });
    const admin = defineRoute({ ...echo, auth: 'admin' });
    const refused = await dispatchRest(env(), [admin], new Request('http://t.test/api/v1/things/x/echo?n=zero', { method: 'POST', body: '{' }));
    expect(refused.status).toBe(403);
    expect(await errorOf(refused)).toEqual({
      code: 'forbidden',
      message: 'refused by the role policy: POST /api/v1/things/{id}/echo needs "admin" (admin); you are operator',
    });
  });

  it('reads an upload as raw bytes with x-file-name, or as form data with a file field', async () => {
    const raw = await call({ path: '/api/v1/upload', method: 'POST', body: 'héllo', headers: { 'x-file-name': encodeURIComponent('a b.txt') } });
    expect(await raw.json()).toEqual({ name: 'a b.txt', text: 'héllo' });
    const form = new FormData();
    form.set('file', new File(['from form'], 'f.eml'));
    expect(await (await call({ path: '/api/v1/upload', method: 'POST', body: form })).json()).toEqual({ name: 'f.eml', text: 'from form' });
    const none = new FormData();
    none.set('other', 'x');
    const bad = await call({ path: '/api/v1/upload', method: 'POST', body: none });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).message).toBe('send the document as the request body, or as form data with a "file" field');
  });

  it('answers engine errors with the status their class declares', async () => {
    const res = await call({ path: '/api/v1/missing', method: 'GET' });
    expect(res.status).toBe(404);
    expect(await errorOf(res)).toEqual({ code: 'run_not_found', message: 'no run r9' });
  });

  it('is 503 while the engine cannot start: a known outage keeps its code, anything else is unavailable', async () => {
    const redis = await call({ path: '/api/v1/missing', method: 'GET' }, env({ engine: () => Promise.reject(new RedisUnreachableError('redis://x', 'ECONNREFUSED')) }));
    expect(redis.status).toBe(503);
    expect((await errorOf(redis)).code).toBe('redis_unreachable');
    const other = await call({ path: '/api/v1/missing', method: 'GET' }, env({ engine: () => Promise.reject(new Error('disk on fire at /srv')) }));
    expect(other.status).toBe(503);
    expect(await errorOf(other)).toEqual({ code: 'unavailable', message: 'Trellis cannot reach its database or Redis right now; try again shortly' });
  });

  it('answers 404 for an unknown path, 405 with Allow for another method, 204 for OPTIONS, and HEAD without a body', async () => {
    const nf = await call({ path: '/api/v1/no/such', method: 'PUT' });
    expect(nf.status).toBe(404);
    expect(await errorOf(nf)).toEqual({ code: 'not_found', message: 'no REST endpoint PUT /api/v1/no/such; the endpoints are listed at /api/v1/openapi.json' });
    const wrong = await call({ path: '/api/v1/upload', method: 'GET' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST, OPTIONS');
    expect((await errorOf(wrong)).code).toBe('method_not_allowed');
    expect((await call({ path: '/api/v1/upload', method: 'OPTIONS' })).status).toBe(204);
    const head = await dispatchRest(env(), REST_ROUTES, new Request('http://t.test/api/v1/openapi.json', { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});

describe('ids and text that SQL cannot hold', () => {
  // The real routes on an embedded database: without the check each of these reached a query and
  // failed there (500, the SQL text and parameters in the log).
  const real = (path: string, init: RequestInit = {}) => dispatchRest(env(), REST_ROUTES, new Request(`http://t.test${path}`, init));
  const json = { 'content-type': 'application/json' };

  it('answers 400 naming the field for NUL in a path id, a query value or a JSON body, signed in or not', async () => {
    const cases: [string, RequestInit, RegExp][] = [
      ['/api/v1/hooks/ab%00cd', { method: 'POST', body: '{}', headers: json }, /^path\.id: must not contain the NUL character/],
      ['/api/v1/runs/ab%00cd', {}, /^path\.id: /],
      ['/api/v1/runs/ab%00cd/urgent', { method: 'POST' }, /^path\.id: /],
      ['/api/v1/runs?meshId=ab%00', {}, /^query\.meshId: /],
      ['/api/v1/runs/urgent', { method: 'POST', body: '{"runIds":["a\\u0000b"]}', headers: json }, /^body\.runIds\.0: /],
    ];
    for (const [path, init, message] of cases) {
      const res = await real(path, init);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(await errorOf(res)).toMatchObject({ code: 'bad_input', message: expect.stringMatching(message) as unknown });
    }
    const anonymous = await dispatchRest(env({ session: () => Promise.resolve(null) }), REST_ROUTES, new Request('http://t.test/api/v1/hooks/ab%00cd', { method: 'POST', body: '{}', headers: json }));
    expect(anonymous.status).toBe(400);
  });

  it('refuses other control characters in ids, and a path that is not validly percent-encoded', async () => {
    const ctl = await real('/api/v1/runs/ab%01cd');
    expect(ctl.status).toBe(400);
    expect(await errorOf(ctl)).toMatchObject({ code: 'bad_input', message: 'path.id: must not contain control characters (such as NUL)' });
    const mangled = await real('/api/v1/runs/%E0%A4%A');
    expect(mangled.status).toBe(400);
    expect((await errorOf(mangled)).message).toBe('path: /api/v1/runs/%E0%A4%A is not validly URL-encoded');
  });
});

describe('the same-origin check on signed-in changes', () => {
  const post = (headers: Record<string, string>) => call({ path: '/api/v1/things/x/echo', method: 'POST', body: '{"word":"hi"}', headers });

  it('refuses a cookie-signed POST from another site, and lets this site and scripts through', async () => {
    const evil = await post({ origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(await errorOf(evil)).toEqual({ code: 'origin_refused', message: 'refused by the same-origin policy: a signed-in change must come from this site, not https://evil.example' });
    expect((await post({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post({ origin: 'http://t.test' })).status).toBe(201);
    expect((await post({ origin: 'https://trellis.example', 'x-forwarded-host': 'trellis.example', 'x-forwarded-proto': 'https' })).status).toBe(201);
    expect((await post({})).status).toBe(201);
  });
});
