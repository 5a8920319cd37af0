/**
 * The web app's probes, called as Next calls their route handlers: /api/livez, /api/readyz and
 * /api/metrics, on a real engine (the test harness's Postgres database and Redis prefix) put where
 * getRuntime finds the process's runtime.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { markDraining, resetDraining } from '@trellis/engine/runtime/drain';
import { useWorlds, type TestWorld } from '../../../../packages/engine/test/harness';
import { GET as livez } from '../app/api/livez/route';
import { GET as metrics } from '../app/api/metrics/route';
import { GET as readyz } from '../app/api/readyz/route';
import type { TrellisRuntime } from './runtime';

/** Makes `world`'s engine the runtime the routes get (as a started web server would have it). */
function serve(world: TestWorld, metricsToken?: string): void {
  const runtime: TrellisRuntime = {
    db: world.handle.db,
    handle: world.handle,
    engine: world.engine,
    engineMode: 'external',
    metricsToken,
    close: () => world.close(),
  };
  globalThis.__trellis = Promise.resolve(runtime);
}

/** A runtime whose start failed (the database or Redis unreachable). */
function failToStart(message: string): void {
  const failed = Promise.reject(new Error(message));
  failed.catch(() => undefined);
  globalThis.__trellis = failed;
}

describe('web probe routes', () => {
  const worlds = useWorlds();
  afterEach(() => {
    globalThis.__trellis = undefined;
    resetDraining();
  });

  it('livez answers 200 without opening anything', async () => {
    failToStart('the database is down');
    const res = livez();
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ ok: true });
  });

  it('readyz answers 200 with every check passed, 503 naming the drain while draining, 503 while the runtime cannot start', async () => {
    serve(await worlds.open());
    const ok = await readyz();
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    const body = (await ok.json()) as { ready: boolean; checks: Record<string, { ok: boolean }> };
    expect(body.ready).toBe(true);
    expect(body.checks.database?.ok).toBe(true);
    expect(body.checks.redis?.ok).toBe(true);

    markDraining('SIGTERM');
    const draining = await readyz();
    expect(draining.status).toBe(503);
    expect(await draining.json()).toMatchObject({ ready: false, checks: { database: { ok: true }, draining: { ok: false, detail: 'draining (SIGTERM)' } } });

    resetDraining();
    failToStart('DATABASE_URL: connection refused');
    const down = await readyz();
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ ready: false, error: 'DATABASE_URL: connection refused' });
  });

  it('metrics answers Prometheus text with the trellis_ metrics; with a token set, only to a request bearing it', async () => {
    const world = await worlds.open();
    serve(world);
    const open = await metrics(new Request('http://web/api/metrics'));
    expect(open.status).toBe(200);
    expect(open.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await open.text();
    for (const name of ['trellis_messages_total', 'trellis_step_duration_seconds', 'trellis_admission_verdicts_total']) {
      expect(text).toMatch(new RegExp(`^# TYPE ${name} (counter|gauge|histogram)$`, 'm'));
    }

    serve(world, 'scrape-token');
    const refused = await metrics(new Request('http://web/api/metrics'));
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain('TRELLIS_METRICS_TOKEN');
    expect((await metrics(new Request('http://web/api/metrics', { headers: { authorization: 'Bearer wrong-token!' } }))).status).toBe(401);
    const allowed = await metrics(new Request('http://web/api/metrics', { headers: { authorization: 'Bearer scrape-token' } }));
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('# TYPE trellis_messages_total counter');

    failToStart('REDIS_URL: connection refused');
    const down = await metrics(new Request('http://web/api/metrics'));
    expect(down.status).toBe(503);
    expect(await down.text()).toBe('metrics unavailable: REDIS_URL: connection refused\n');
  });
});
