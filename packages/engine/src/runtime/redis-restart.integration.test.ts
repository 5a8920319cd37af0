/**
 * Redis restarted mid-run, with persistence: a private redis-server (ports 6391–6393, never the
 * shared one) with `appendonly yes` and `appendfsync always` is SIGKILLed in the middle of a run
 * and started again on the same directory. The AOF brings the queues back; jobs whose lock lapsed
 * while Redis was away are handed on by the stalled check, children added while it was away are
 * re-added by the relay. The run ends done and exact. Without persistence the run also ends exact,
 * but only because the relay re-adds every open message from its row (each such restart spends
 * one of a message's `maxRequeues`): the two variants show the difference AOF makes. Also: the
 * start-up durability warning.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { sql } from 'drizzle-orm';
import { licensesText, WORD_SPLIT, exactness, saveOrThrow, startOwnRedis, useWorlds, type OwnRedis, expectExactDone } from '../../test/harness';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { jobKey } from '../kernel/queues';
import { rows, textArray } from '../kernel/sql';
import type { Logger } from '../kernel/log';
import { checkRedisDurability, warnOnRedisDurability } from '../kernel/engine';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Redis restarted mid-run', () => {
  const servers: OwnRedis[] = [];
  // Registered before the worlds' hook, so it runs after it: the engines let go of a server before it stops.
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });
  const worlds = useWorlds();

  /**
   * Kills the private Redis mid-run and starts it again; checks the run ends done and exact, and
   * returns how many messages had their job in Redis just before the kill and were still open once
   * the kill had settled (`queued`), and how many of those the relay had to re-add afterwards
   * (`reAdded`): the jobs Redis forgot.
   */
  async function restartMidRun(port: number, args: string[]) {
    const redis = await startOwnRedis(port, args);
    servers.push(redis);
    // The inline lane off (inlineMax 0): this test is about messages whose jobs are in Redis when it
    // restarts; with the lane, light work never reaches Redis (its own crash test: inline-crash).
    const world = await worlds.open({ tickMs: 500, relayAfterMs: 1_000, lockDurationMs: 3_000, stalledIntervalMs: 1_000, inlineMax: 0 }, 'postgres', redis.url);
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    worlds.start(world, { pools: ['default'], concurrency: 200 });
    const text = licensesText();
    const doc = text.subarray(0, text.indexOf(0x0c, text.indexOf(0x0c) + 1) + 1); // two pages
    const { runId } = await startRun(world.engine, { meshId, input: { bytes: doc } });
    const db = world.engine.db;
    const count = async (where: ReturnType<typeof sql>) =>
      (await rows<{ n: number }>(db, sql`select count(*)::int as n from messages where run_id = ${runId} and ${where}`))[0]?.n ?? 0;
    while ((await count(sql`status = 'done'`)) < 300) await sleep(20);
    const open = await rows<{ id: string; pool: string; requeues: number }>(
      db,
      sql`select id, pool, requeues from messages where run_id = ${runId} and status in ('pending', 'running')`,
    );
    const pipe = world.engine.redis.pipeline();
    for (const m of open) pipe.exists(jobKey(world.engine.config.prefix, m.pool, m.id));
    const answers = (await pipe.exec()) ?? [];
    const inRedis = open.filter((_, i) => answers[i]?.[1] === 1);
    await redis.kill();
    // The state at the moment of the fault: once the batches in flight when Redis died have
    // committed (the done count holds still), the queued jobs whose message is still open are the
    // ones only Redis (or the relay) can bring back.
    let atKill = -1;
    for (let still = 0; still < 3; ) {
      const n = await count(sql`status = 'done'`);
      still = n === atKill ? still + 1 : 0;
      atKill = n;
      await sleep(100);
    }
    const openNow = new Set(
      (await rows<{ id: string }>(db, sql`select id from messages where id = any(${textArray(inRedis.map((m) => m.id))}) and status in ('pending', 'running')`)).map((m) => m.id),
    );
    const queued = inRedis.filter((m) => openNow.has(m.id));
    // The outage: Redis is away for 2 s while the workers' commands wait for it.
    await sleep(2_000);
    await redis.restart();

    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 90_000 });
    await expectExactDone(world.engine.db, view.id);
    expect(Buffer.from((view.output as { text: string }).text, 'utf8').equals(doc)).toBe(true);
    expect(atKill).toBeLessThan(view.counts.published); // the kill really was mid-run
    const ex = await exactness(world.engine.db, runId);
    expect(ex).toMatchObject({ notDone: 0, duplicateJoins: 0, unfiredJoins: 0 });
    expect(ex.delivered).toBe(ex.published);
    const after = await rows<{ id: string; requeues: number }>(
      db,
      sql`select id, requeues from messages where id = any(${textArray(queued.map((m) => m.id))})`,
    );
    const before = new Map(queued.map((m) => [m.id, m.requeues]));
    return { queued: queued.length, reAdded: after.filter((m) => m.requeues > (before.get(m.id) ?? 0)).length };
  }

  it('with AOF: the run resumes after the restart and ends done and exact', { timeout: 150_000 }, async () => {
    const { queued, reAdded } = await restartMidRun(6391, ['--appendonly', 'yes', '--appendfsync', 'always']);
    // The AOF kept every queued job: none of them had to be re-added from its row.
    expect(queued).toBeGreaterThan(100);
    expect(reAdded).toBe(0);
  });

  it('without persistence: nothing is lost either, but only because the relay re-adds every open message', { timeout: 150_000 }, async () => {
    const { queued, reAdded } = await restartMidRun(6394, ['--appendonly', 'no']);
    // Redis came back empty: every queued job still open after the restart was re-added from its
    // row by the relay. Each such restart spends one of a message's `maxRequeues` re-adds (five
    // restarts in one run would declare it lost); with AOF none is spent.
    expect(queued).toBeGreaterThan(100);
    expect(reAdded).toBe(queued);
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
    const world = await worlds.open({}, 'postgres', risky.url);
    const found = await warnOnRedisDurability({ ...world.engine, log });
    expect(found.checked).toBe(true);
    expect(warned).toEqual([
      'Redis has appendonly no: a Redis restart loses queued jobs; set appendonly yes',
      'Redis has maxmemory-policy allkeys-lru: it may evict queued jobs; set maxmemory-policy noeviction',
    ]);
    // Once per process for a server: a second engine on the same Redis says nothing more.
    warned.length = 0;
    expect((await warnOnRedisDurability({ ...world.engine, log })).warnings).toHaveLength(2);
    expect(warned).toEqual([]);

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
