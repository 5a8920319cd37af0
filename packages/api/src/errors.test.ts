import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { MeshInvalidError, RedisUnreachableError, RunNotFoundError } from '@trellis/engine/errors';
import type { Finding } from '@trellis/mesh/findings';
import type { Context } from './context';
import { describeApiError } from './errors';
import { protectedProcedure, publicProcedure, router } from './trpc';

const finding: Finding = { code: 'head_missing', severity: 'error', message: 'No member is the head.' };

const testRouter = router({
  invalid: publicProcedure.query(() => {
    throw new MeshInvalidError([finding]);
  }),
  missing: publicProcedure.query(() => {
    throw new RunNotFoundError('r1');
  }),
  redis: publicProcedure.query(() => {
    throw new RedisUnreachableError('redis://127.0.0.1:6379', 'ECONNREFUSED');
  }),
  crash: publicProcedure.query(() => {
    throw new Error('relation "secret_table" does not exist at /srv/app/db.ts:12');
  }),
  typed: publicProcedure.input(z.object({ limit: z.number().max(10) })).query(() => 'ok'),
  guarded: protectedProcedure.query(() => 'ok'),
});

async function call(path: string, input?: unknown) {
  const query = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
  const res = await fetchRequestHandler({
    endpoint: '/api/trpc',
    req: new Request(`http://localhost/api/trpc/${path}${query}`),
    router: testRouter,
    createContext: () => ({ user: null }) as unknown as Context,
  });
  const body = (await res.json()) as { error: { json: { message: string; data: Record<string, unknown> } } };
  return { status: res.status, error: body.error.json };
}

describe('error formatter', () => {
  it('maps an invalid mesh to 400 with its findings', async () => {
    const { status, error } = await call('invalid');
    expect(status).toBe(400);
    expect(error.data).toMatchObject({ code: 'BAD_REQUEST', reason: 'mesh_invalid', findings: [finding] });
    expect(error.message).toContain('No member is the head.');
  });

  it('maps missing things to 404 and an unreachable Redis to 503 with how to fix it', async () => {
    expect((await call('missing')).status).toBe(404);
    const redis = await call('redis');
    expect(redis.status).toBe(503);
    expect(redis.error.message).toContain('REDIS_URL');
  });

  it('hides internals of unexpected errors and never sends a stack', async () => {
    const { status, error } = await call('crash');
    expect(status).toBe(500);
    expect(error.message).toBe('something went wrong inside Trellis');
    expect(JSON.stringify(error)).not.toMatch(/secret_table|\/srv\/app|stack/);
  });

  it('names the field of bad input', async () => {
    const { status, error } = await call('typed', { limit: 99 });
    expect(status).toBe(400);
    expect(error.data.reason).toBe('bad_input');
    expect(error.message).toMatch(/^the request was not understood: limit: /);
  });

  it('refuses callers without a session', async () => {
    const { status, error } = await call('guarded');
    expect(status).toBe(401);
    expect(error.message).toBe('sign in to continue');
  });

  it('describes errors thrown outside tRPC the same way (REST routes)', () => {
    expect(describeApiError(new RunNotFoundError('r9'))).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, reason: 'run_not_found' });
  });
});
