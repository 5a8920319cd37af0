/**
 * The health server of a worker or orchestrator process: /livez, /readyz (database, Redis, drain)
 * and /metrics, whose counters after a real run match the run's message rows.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { WORD_SPLIT, openWorld, saveOrThrow, startOwnRedis, useWorlds, type TestWorld } from '../../test/harness';
import { rows } from '../kernel/sql';
import { msgStatus } from '../kernel/statuses';
import { useGaugeSource } from '../kernel/metrics';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { markDraining, resetDraining } from './drain';
import { startHealthServer, type HealthServer } from './health';

const worlds = useWorlds();
let servers: HealthServer[] = [];
async function closeAll(): Promise<void> {
  for (const s of servers) await s.close();
  servers = [];
}
afterEach(async () => {
  await closeAll();
  resetDraining();
  useGaugeSource(undefined);
});

async function serve(world: TestWorld, metricsToken?: string): Promise<string> {
  const server = await startHealthServer(world.engine, { port: 0, host: '127.0.0.1', metricsToken });
  servers.push(server);
  return `http://127.0.0.1:${server.port}`;
}

/** The value of one sample line of the Prometheus text, `name{labels} value`; 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

async function scrape(base: string): Promise<string> {
  const res = await fetch(`${base}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/plain/);
  return res.text();
}

const Count = z.object({ n: z.coerce.number() });

describe('health server', () => {
  it('is live and ready; not ready while draining, saying why', async () => {
    const world = await worlds.open();
    const base = await serve(world);
    expect((await fetch(`${base}/livez`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, checks: { database: { ok: true }, redis: { ok: true }, draining: { ok: true } } });

    markDraining('SIGTERM');
    const draining = await fetch(`${base}/readyz`);
    expect(draining.status).toBe(503);
    expect(await draining.json()).toMatchObject({ ready: false, checks: { database: { ok: true }, draining: { ok: false, detail: 'draining (SIGTERM)' } } });
    // Still live: a draining process is finishing its work, not stuck.
    expect((await fetch(`${base}/livez`)).status).toBe(200);
  });

  it('is not ready while Redis does not answer, naming REDIS_URL, and ready again when it does', async () => {
    const redis = await startOwnRedis(6397);
    const world = await openWorld('postgres', { bus: 'redis' }, redis.url);
    try {
      const base = await serve(world);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      redis.pause(); // SIGSTOP: the connection stays open, nothing answers
      const res = await fetch(`${base}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { checks: { database: { ok: boolean }; redis: { ok: boolean; detail?: string } } };
      expect(body.checks.database.ok).toBe(true);
      expect(body.checks.redis).toEqual({ ok: false, detail: 'Redis (REDIS_URL) did not answer within 2000 ms' });
      expect((await fetch(`${base}/livez`)).status).toBe(200);
      redis.resume();
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
    } finally {
      redis.resume();
      await closeAll();
      await world.close();
      await redis.close();
    }
  });

  it('asks for the bearer token on /metrics when one is set', async () => {
    const world = await worlds.open();
    const base = await serve(world, 's3cret-token');
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer wrong-token!' } })).status).toBe(401);
    const ok = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer s3cret-token' } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('trellis_messages_total');
  });

  it('counts a real run: messages published and done equal its rows, one step per message, its joins', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const base = await serve(world);
    const before = await scrape(base);
    worlds.start(world, { concurrency: 50 });
    const { runId } = await startRun(world.engine, { meshId, input: { bytes: new TextEncoder().encode('alpha beta gamma\ndelta\fepsilon zeta') } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    expect(view.status).toBe('done');
    const after = await scrape(base);
    const delta = (series: string) => sample(after, series) - sample(before, series);

    const [done] = await rows(world.engine.db, sql`select count(*) as n from messages where run_id = ${runId} and status = ${msgStatus('done')}`, Count);
    const [all] = await rows(world.engine.db, sql`select count(*) as n from messages where run_id = ${runId} and status <> ${msgStatus('filtered')}`, Count);
    const [joins] = await rows(world.engine.db, sql`select count(*) as n from joins where run_id = ${runId} and fired_at is not null`, Count);
    expect(done?.n).toBeGreaterThan(10);
    expect(delta('trellis_messages_total{state="done"}')).toBe(done?.n);
    expect(delta('trellis_messages_total{state="published"}')).toBe(all?.n);
    expect(delta('trellis_messages_total{state="dead"}')).toBe(0);
    const stepCounts = after.split('\n').filter((l) => l.startsWith('trellis_step_duration_seconds_count{'));
    const stepsBefore = before.split('\n').filter((l) => l.startsWith('trellis_step_duration_seconds_count{'));
    const total = (ls: string[]) => ls.reduce((n, l) => n + Number(l.split(' ')[1]), 0);
    expect(total(stepCounts) - total(stepsBefore)).toBe(done?.n);
    expect(after).toMatch(/trellis_step_duration_seconds_count\{kind="workflow"\} \d+/);
    expect(joins?.n).toBeGreaterThan(0);
    expect(delta('trellis_join_wait_seconds_count')).toBe(joins?.n);
    expect(sample(after, 'trellis_runs{status="done",cause=""}')).toBe(1);
    expect(sample(after, 'trellis_queue_depth{pool="default"}')).toBe(0);
    for (const name of ['trellis_lease_lapses_total', 'trellis_admission_verdicts_total', 'trellis_queue_oldest_age_seconds']) expect(after).toContain(`# TYPE ${name}`);
  });

  it('reports a waiting message in queue depth and its age', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const base = await serve(world);
    // No worker serves the pool: the head message waits (a BullMQ job, or a pending row on the in-process bus).
    await startRun(world.engine, { meshId, input: { bytes: new TextEncoder().encode('one') } });
    await new Promise((r) => setTimeout(r, 1_200));
    const text = await scrape(base);
    expect(sample(text, 'trellis_queue_depth{pool="default"}')).toBe(1);
    expect(sample(text, 'trellis_queue_oldest_age_seconds{pool="default"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'trellis_runs{status="running",cause=""}')).toBe(1);
  });
});
