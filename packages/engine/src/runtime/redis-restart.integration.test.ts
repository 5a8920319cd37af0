/**
 * Redis restarted mid-run, with persistence: a private redis-server (ports 6391–6393, never the
 * shared one) with `appendonly yes` and `appendfsync always` is SIGKILLed in the middle of a run
 * and started again on the same directory. The AOF brings the queues back; jobs whose lock lapsed
 * while Redis was away are handed on by the stalled check, children added while it was away are
 * re-added by the relay. The run ends done and exact. Also: the start-up durability warning.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { sql } from 'drizzle-orm';
import { LICENSES, WORD_SPLIT, exactness, openWorld, saveOrThrow, startOwnRedis, type OwnRedis, type TestWorld } from '../../test/harness';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { rows } from '../sql';
import type { Logger } from '../log';
import { checkRedisDurability, warnOnRedisDurability } from './context';
import { startInProcess } from './in-process';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Redis restarted mid-run', () => {
  let world: TestWorld | undefined;
  let runtime: { close(): Promise<void> } | undefined;
  const servers: OwnRedis[] = [];
  afterEach(async () => {
    await runtime?.close();
    await world?.close();
    for (const s of servers.splice(0)) await s.close();
    runtime = undefined;
    world = undefined;
  });

  it('with AOF: the run resumes after the restart and ends done and exact', { timeout: 150_000 }, async () => {
    const redis = await startOwnRedis(6391, ['--appendonly', 'yes', '--appendfsync', 'always']);
    servers.push(redis);
    world = await openWorld('postgres', { tickMs: 500, relayAfterMs: 1_000, lockDurationMs: 3_000, stalledIntervalMs: 1_000 }, redis.url);
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    runtime = startInProcess(world.engine, { pools: ['default'], concurrency: 200 });
    const doc = LICENSES.subarray(0, LICENSES.indexOf(0x0c, LICENSES.indexOf(0x0c) + 1) + 1); // two pages
    const { runId } = await startRun(world.engine, { meshId, input: { bytes: doc } });
    const db = world.engine.db;
    const done = async () =>
      (await rows<{ n: number }>(db, sql`select count(*)::int as n from messages where run_id = ${runId} and status = 'done'`))[0]?.n ?? 0;
    while ((await done()) < 300) await sleep(20);
    await redis.kill();
    const atKill = await done();
    await sleep(2_000);
    await redis.restart();

    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 90_000 });
    expect(view.status, JSON.stringify(view.counts)).toBe('done');
    expect(Buffer.from((view.output as { text: string }).text, 'utf8').equals(doc)).toBe(true);
    expect(atKill).toBeLessThan(view.counts.published); // the kill really was mid-run
    const ex = await exactness(world.engine.db, runId);
    expect(ex).toMatchObject({ notDone: 0, duplicateJoins: 0, unfiredJoins: 0 });
    expect(ex.delivered).toBe(ex.published);
  });

  it('warns at start-up about appendonly no and an evicting maxmemory-policy; tolerates CONFIG disabled', async () => {
    const risky = await startOwnRedis(6392, ['--appendonly', 'no', '--maxmemory-policy', 'allkeys-lru']);
    servers.push(risky);
    const locked = await startOwnRedis(6393, ['--appendonly', 'yes', '--rename-command', 'CONFIG', '']);
    servers.push(locked);
    const safe = await startOwnRedis(6391, ['--appendonly', 'yes']);
    servers.push(safe);

    const warned: string[] = [];
    const log: Logger = { info: () => undefined, warn: (m) => void warned.push(m), error: () => undefined };
    world = await openWorld('postgres', {}, risky.url);
    const found = await warnOnRedisDurability({ ...world.engine, log });
    expect(found.checked).toBe(true);
    expect(warned).toEqual([
      'Redis has appendonly no: a Redis restart loses queued jobs; set appendonly yes',
      'Redis has maxmemory-policy allkeys-lru: it may evict queued jobs; set maxmemory-policy noeviction',
    ]);

    for (const [server, expected] of [
      [safe, { warnings: [], checked: true }],
      [locked, { warnings: [], checked: false }],
    ] as const) {
      const r = new Redis(server.url);
      try {
        expect(await checkRedisDurability(r)).toEqual(expected);
      } finally {
        r.disconnect();
      }
    }
  });
});
