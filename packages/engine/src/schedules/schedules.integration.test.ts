/**
 * Schedules on real Postgres and Redis: two schedulers (two engines on their own connections, as
 * two orchestrators would be) running the same every-second schedule start exactly one run per
 * tick, with no tick lost; missed ticks follow the schedule's policy; a bad schedule is refused
 * naming the field.
 */
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { openDb } from '@trellis/db/client';
import { runEntries } from '@trellis/db/schema/run-entries';
import { runs } from '@trellis/db/schema/runs';
import { schedules } from '@trellis/db/schema/schedules';
import { createEngine } from '../kernel/engine';
import { silentLogger } from '../kernel/log';
import { startEntryLoops } from '../runtime/entry-loops';
import { waitForAnswer } from '../runs/wait-answer';
import { PG_ADMIN_URL, REDIS_URL, saveOrThrow, useWorlds, WORD_SPLIT, type TestWorld } from '../../test/harness';
import { createSchedule, setScheduleEnabled } from './manage-schedules';
import { runDueSchedules, tickKey } from './run-schedules';

const ACTOR = { id: 'u-test', email: 'designer@schedules.test' };

/** A second engine on the world's database over connections of its own. */
async function secondEngine(world: TestWorld) {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${world.databaseName ?? ''}`;
  const handle = await openDb({ url: url.toString() });
  const engine = createEngine({ db: handle.db, redisUrl: REDIS_URL, prefix: world.prefix, log: silentLogger });
  return { engine, close: async () => (await engine.close(), await handle.close()) };
}

describe('schedules', () => {
  const worlds = useWorlds();

  it('start exactly one run per tick with two schedulers running, and lose none', async () => {
    const world = await worlds.open();
    await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
    const other = await secondEngine(world);
    const s = await createSchedule(world.engine, { name: 'every-second', mesh: 'word-split', cron: '* * * * * *', timezone: 'Europe/Paris', input: { text: 'tick tock' }, actor: ACTOR });
    const a = startEntryLoops(world.engine, { everyMs: 100 });
    const b = startEntryLoops(other.engine, { everyMs: 100 });
    try {
      await new Promise((r) => setTimeout(r, 4_500));
    } finally {
      await a.close();
      await b.close();
      await other.close();
    }
    await setScheduleEnabled(world.engine, { schedule: s.id, enabled: false, actor: ACTOR });
    const entries = await world.engine.db.select().from(runEntries);
    const started = await world.engine.db.select().from(runs);
    // Each run is named after its tick (`<schedule> <tick ISO time>`).
    const ticks = [...new Set(started.map((r) => r.inputName?.replace('every-second ', '') ?? ''))].sort();
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    // One run per tick: as many runs as ticks, each under its tick's key.
    expect(started).toHaveLength(ticks.length);
    expect(entries.map((e) => e.idempotencyKey).sort()).toEqual(ticks.map((t) => tickKey(s.id, new Date(t))));
    // No tick lost between the first and the last: consecutive seconds.
    const seconds = ticks.map((t) => Date.parse(t) / 1000);
    expect(seconds).toEqual(seconds.map((_, i) => (seconds[0] ?? 0) + i));
    expect(entries.every((e) => e.entry === 'schedule')).toBe(true);

    // The runs are ordinary runs: one of them, run to its end, answers with the fixed input.
    worlds.start(world, { pools: ['default'], concurrency: 4 });
    const first = entries.find((e) => e.idempotencyKey === tickKey(s.id, new Date(ticks[0] ?? '')));
    expect(await waitForAnswer(world.engine.db, first?.runId ?? '', { timeoutMs: 20_000 })).toMatchObject({ status: 'done', output: { text: 'tick tock' } });
    const [row] = await world.engine.db.select().from(schedules).where(eq(schedules.id, s.id));
    expect(row?.lastRunId).toBe(entries.find((e) => e.idempotencyKey === tickKey(s.id, new Date(ticks.at(-1) ?? '')))?.runId);
  }, 60_000);

  it('skip missed ticks, or run once for the latest of them, and always the tick that is on time', async () => {
    const world = await worlds.open();
    await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
    const skip = await createSchedule(world.engine, { name: 'skips', mesh: 'word-split', cron: '* * * * *', input: { text: 's' }, missed: 'skip', actor: ACTOR });
    const once = await createSchedule(world.engine, { name: 'catches-up', mesh: 'word-split', cron: '* * * * *', input: { payload: { text: 'o' } }, missed: 'run_once', actor: ACTOR });
    // As if no orchestrator ran from 10:00 to 10:10:30: ticks 10:00-10:09 missed, 10:10 on time.
    const down = new Date('2026-01-01T10:00:00Z');
    await world.engine.db.update(schedules).set({ nextAt: down });
    const now = new Date('2026-01-01T10:10:30Z');
    const pass = await runDueSchedules(world.engine, now);
    const ticksOf = (id: string) => pass.started.filter((p) => p.scheduleId === id).map((p) => p.tick.toISOString().slice(11, 16));
    expect(ticksOf(skip.id)).toEqual(['10:10']);
    expect(ticksOf(once.id)).toEqual(['10:09', '10:10']);
    expect(pass.skipped).toBe(10 + 9);
    const rows = await world.engine.db.select().from(schedules).orderBy(schedules.name);
    expect(rows.map((r) => [r.name, r.nextAt?.toISOString(), r.lastTickAt?.toISOString()])).toEqual([
      ['catches-up', '2026-01-01T10:11:00.000Z', '2026-01-01T10:10:00.000Z'],
      ['skips', '2026-01-01T10:11:00.000Z', '2026-01-01T10:10:00.000Z'],
    ]);
    // The same pass again (another orchestrator, or a retry after a crash) starts nothing new.
    await world.engine.db.update(schedules).set({ nextAt: down });
    const again = await runDueSchedules(world.engine, now);
    expect(again.started.every((p) => p.reused)).toBe(true);
    expect(await world.engine.db.select().from(runs)).toHaveLength(3);
  });

  it('refuses a bad schedule naming the field, before anything is saved', async () => {
    const world = await worlds.open();
    await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
    const base = { name: 'bad', mesh: 'word-split', cron: '0 9 * * *', input: { text: 'x' }, actor: ACTOR };
    await expect(createSchedule(world.engine, { ...base, cron: 'every day' })).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/^cron: "every day" is not a cron expression/) as unknown });
    await expect(createSchedule(world.engine, { ...base, timezone: 'Nowhere/City' })).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/^timezone:/) as unknown });
    await expect(createSchedule(world.engine, { ...base, missed: 'all' })).rejects.toMatchObject({ message: 'missed: expected one of skip, run_once' });
    await expect(createSchedule(world.engine, { ...base, input: { text: 'a\u0000b' } })).rejects.toMatchObject({ code: 'input_rejected' });
    await expect(createSchedule(world.engine, { ...base, mesh: 'nope' })).rejects.toMatchObject({ code: 'mesh_not_found' });
    expect(await world.engine.db.select().from(schedules)).toHaveLength(0);
  });
});
