// The /api/v1 proxy: a path that is not validly percent-encoded is a 400 naming the path (without it
// the framework's own decoding of the route's parameters failed with a plain 500).
import { NextRequest } from 'next/server';
import { describe, expect, it } from 'vitest';
import { config, proxy } from './proxy';

describe('the /api/v1 proxy', () => {
  it('answers 400 bad_input naming a path that is not validly percent-encoded', async () => {
    const res = proxy(new NextRequest('http://localhost/api/v1/runs/%E0%A4%A'));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: 'bad_input', message: 'path: /api/v1/runs/%E0%A4%A is not validly URL-encoded' } });
  });

  it('lets a well-encoded path through to the routes, and serves only /api/v1', () => {
    const res = proxy(new NextRequest('http://localhost/api/v1/runs/ab%2Fcd'));
    expect(res.headers.get('x-middleware-next')).toBe('1');
    expect(config.matcher).toBe('/api/v1/:path*');
  });
});
