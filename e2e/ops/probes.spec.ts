/**
 * The web app's probes as a load balancer and Prometheus see them: /api/livez and /api/readyz answer
 * 200 with their checks, /api/metrics answers Prometheus text with the trellis_ metrics.
 */
import { expect, test } from '@playwright/test';

test('livez and readyz answer 200 with their checks; metrics is Prometheus text with trellis_ names', async ({ request }) => {
  const live = await request.get('/api/livez');
  expect(live.status()).toBe(200);
  expect(live.headers()['cache-control']).toBe('no-store');
  expect(await live.json()).toEqual({ ok: true });

  const ready = await request.get('/api/readyz');
  expect(ready.status(), await ready.text()).toBe(200);
  const body = (await ready.json()) as { ready: boolean; checks: Record<string, { ok: boolean }> };
  expect(body.ready).toBe(true);
  expect(Object.keys(body.checks).sort()).toEqual(['database', 'draining', 'redis']);
  for (const check of Object.values(body.checks)) expect(check.ok).toBe(true);

  const metrics = await request.get('/api/metrics');
  expect(metrics.status()).toBe(200);
  expect(metrics.headers()['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await metrics.text();
  for (const name of ['trellis_messages_total', 'trellis_runs', 'trellis_admission_verdicts_total']) {
    expect(text).toMatch(new RegExp(`^# TYPE ${name} (counter|gauge|histogram)$`, 'm'));
  }
  // Every sample line is `name{labels} value`.
  const samples = text.split('\n').filter((l) => l && !l.startsWith('#'));
  expect(samples.length).toBeGreaterThan(0);
  for (const line of samples) expect(line).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? (-?[0-9.e+-]+|NaN|[+-]Inf)$/);
});
