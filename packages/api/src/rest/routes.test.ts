import { describe, expect, it } from 'vitest';
import { RedisUnreachableError } from '@trellis/engine/errors';
import type { RestEnv } from './contract';
import { handleRest, openApiDocument } from './routes';

/** The engine is away and nobody is signed in: every route is reached, none gets further than its checks. */
const env: RestEnv = { engine: () => Promise.reject(new RedisUnreachableError('redis://nowhere', 'connection refused')), session: () => Promise.resolve(null) };

/** A concrete path for a documented template: every `{param}` filled with a plausible value. */
const fill = (template: string) => template.replace(/\{[^}]+\}/g, 'x1');

describe('the REST route table through the catch-all handler', () => {
  const doc = openApiDocument();
  const operations = Object.entries(doc.paths ?? {}).flatMap(([path, item]) => Object.keys(item ?? {}).map((method) => ({ path, method: method.toUpperCase() })));

  it('documents at least the run upload, the service job calls and the document itself', () => {
    expect(operations.length).toBeGreaterThanOrEqual(5);
  });

  // handleRest is the one function apps/web/src/app/api/v1/[...rest]/route.ts calls for every method.
  it.each(operations)('$method $path reaches its route', async ({ path, method }) => {
    const res = await handleRest(env, new Request(`http://t.test${fill(path)}`, { method, ...(method === 'GET' || method === 'HEAD' ? {} : { body: '{}' }) }));
    const body = res.status === 200 ? null : ((await res.json()) as { error?: { code?: string } });
    expect(body?.error?.code, `${method} ${path} answered ${res.status}`).not.toBe('not_found');
    expect(res.status, `${method} ${path}`).not.toBe(405);
  });

  it('answers an undocumented path with the JSON 404 and another method with 405', async () => {
    const unknown = await handleRest(env, new Request('http://t.test/api/v1/nothing-here'));
    expect(unknown.status).toBe(404);
    const [first] = operations;
    const other = first?.method === 'DELETE' ? 'PATCH' : 'DELETE';
    const wrong = await handleRest(env, new Request(`http://t.test${fill(first?.path ?? '')}`, { method: other }));
    expect(wrong.status).toBe(405);
  });
});
