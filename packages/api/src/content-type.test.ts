// A tRPC call whose body is not JSON answers 415 naming the content type expected, not a 500.
import { describe, expect, it } from 'vitest';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { Context } from './context';
import { appRouter } from './root';

async function post(headers: Record<string, string>) {
  const res = await fetchRequestHandler({
    endpoint: '/api/trpc',
    req: new Request('http://localhost/api/trpc/meshes.import', { method: 'POST', body: new TextEncoder().encode('{"json":{"text":"{}"}}'), headers }),
    router: appRouter,
    createContext: () => ({ session: null }) as unknown as Context,
  });
  const body = (await res.json()) as { error: { json: { message: string; data: Record<string, unknown> } } };
  return { status: res.status, error: body.error.json };
}

describe('tRPC request content type', () => {
  it('answers text/plain with 415 naming application/json and what was sent', async () => {
    const { status, error } = await post({ 'content-type': 'text/plain' });
    expect(status).toBe(415);
    expect(error.data).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', httpStatus: 415, reason: 'unsupported_media_type' });
    expect(error.message).toBe('tRPC calls take a JSON body: send content-type: application/json, not "text/plain"');
  });

  it('answers a missing content type with 415 too', async () => {
    const { status, error } = await post({});
    expect(status).toBe(415);
    expect(error.message).toBe('tRPC calls take a JSON body: send content-type: application/json; none was sent');
  });

  it('goes on to the session check when the body is JSON', async () => {
    expect((await post({ 'content-type': 'application/json' })).status).toBe(401);
  });
});
