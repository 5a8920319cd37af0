/**
 * `npm run bench:history [-- --rows N] [-- --words N]`: cost flat with history. In one run, on
 * Postgres with an in-process worker at concurrency 200: a `--words`-way word-split (20,000 unless
 * told) on an empty database, then `--rows` message rows of finished history (10,000,000 unless
 * told; join parts and runs to match) built with set-based inserts (`insert … select
 * generate_series`) into a second database, then the same word-split there. Prints both times and
 * their ratio (target ≤ 1.10), and the bytes per message of the empty run's trail: the total size
 * (table, indexes, toast) of `messages` and `join_parts` over its message count, with the average
 * stored size of each column and the size of each index. Uses its own databases and queue prefixes.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { WORD_SPLIT, openWorld, saveOrThrow, type TestWorld } from '../packages/engine/test/harness';
import { startInProcess } from '../packages/engine/src/runtime/in-process';
import { startRun } from '../packages/engine/src/runs/start-run';
import { waitForRun } from '../packages/engine/src/runs/wait-run';
import { rows } from '../packages/engine/src/kernel/sql';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '10000000' }, words: { type: 'string', default: '20000' } } });
const historyRows = Number(values.rows);
const words = Number(values.words);
if (!Number.isInteger(historyRows) || historyRows < 0) throw new Error(`--rows must be a whole number, got ${values.rows}`);
if (!Number.isInteger(words) || words < 1) throw new Error(`--words must be a positive whole number, got ${values.words}`);

/** `n` distinct words on one line: one branch per word. */
const document = (n: number) => Array.from({ length: n }, (_, i) => `w${i.toString(36)}`).join(' ');

/** One word-split of `words` words on `world`: seconds and whether the output is exact. */
async function wordSplit(world: TestWorld): Promise<{ seconds: number; exact: boolean; runId: string }> {
  const runtime = startInProcess(world.engine, { pools: ['default'], concurrency: 200 });
  try {
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const text = document(words);
    const started = performance.now();
    const { runId } = await startRun(world.engine, { meshId, input: { text } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30 * 60_000, pollMs: 20 });
    const seconds = (performance.now() - started) / 1000;
    return { seconds, exact: view.status === 'done' && (view.output as { text?: string }).text === text, runId };
  } finally {
    await runtime.close();
  }
}

const num = z.coerce.number();

/** Bytes per message of the trail in `world`, with per-column and per-index figures. */
async function bytesPerMessage(world: TestWorld, label: string): Promise<void> {
  const db = world.engine.db;
  const [total] = await rows(
    db,
    sql`select (select count(*) from messages) as messages, (select count(*) from join_parts) as parts,
               pg_total_relation_size('messages') as m_total, pg_total_relation_size('join_parts') as p_total,
               pg_relation_size('messages') as m_heap, pg_relation_size('join_parts') as p_heap`,
    z.object({ messages: num, parts: num, m_total: num, p_total: num, m_heap: num, p_heap: num }),
  );
  if (!total) throw new Error('no size row');
  const per = (b: number) => (b / total.messages).toFixed(0);
  console.log(`\ntrail ${label}: ${total.messages} messages, ${total.parts} join parts`);
  console.log(`bytes per message (messages + join_parts, table + indexes + toast): ${per(total.m_total + total.p_total)}`);
  console.log(`  messages: ${per(total.m_total)} (heap ${per(total.m_heap)}); join_parts: ${per(total.p_total)} (heap ${per(total.p_heap)})`);
  const indexes = await rows(
    db,
    sql`select indexrelid::regclass::text as name, pg_relation_size(indexrelid) as bytes from pg_index
         where indrelid in ('messages'::regclass, 'join_parts'::regclass) order by 2 desc`,
    z.object({ name: z.string(), bytes: num }),
  );
  for (const i of indexes) console.log(`  index ${i.name}: ${per(i.bytes)}`);
  for (const table of ['messages', 'join_parts']) {
    const cols = await rows(
      db,
      sql`select attname as name from pg_attribute where attrelid = ${table}::regclass and attnum > 0 and not attisdropped order by attnum`,
      z.object({ name: z.string() }),
    );
    // Names from pg_attribute of our own tables, quoted: safe to splice.
    const parts = cols.map((c) => `coalesce(avg(pg_column_size("${c.name}")), 0)::float8 as "${c.name}"`);
    const [avg] = await rows(db, sql.raw(`select ${parts.join(', ')} from ${table}`), z.record(z.string(), num));
    console.log(`  ${table} average stored bytes per column: ${Object.entries(avg ?? {}).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}`);
  }
}

/**
 * `n` message rows of finished history, set-based: runs of `perRun` messages each (a head, then
 * word parts with their join parts and one join per run), all done and days old.
 */
async function buildHistory(world: TestWorld, n: number): Promise<void> {
  const db = world.engine.db;
  const perRun = 20_000;
  // Whole numbers computed here, spliced as literals (untyped parameters leave Postgres guessing).
  const lit = (v: number) => sql.raw(String(Math.trunc(v)));
  const per = lit(perRun);
  const runCount = Math.max(1, Math.ceil(n / perRun));
  await db.execute(sql`insert into runs (id, mesh_id, mesh_name, mesh_version, status, input, output, created_at, started_at, ended_at, moved_at, message_count)
    select 'hist' || r, 'hist-mesh', 'history', 1, 'done', '{"text":"x"}'::jsonb, '{"text":"x"}'::jsonb,
           now() - interval '30 days' + r * interval '1 second', now() - interval '30 days', now() - interval '30 days', now() - interval '30 days', ${per}
      from generate_series(1, ${lit(runCount)}) r`);
  const chunk = 1_000_000;
  for (let from = 0; from < n; from += chunk) {
    const to = Math.min(n, from + chunk) - 1;
    const started = performance.now();
    await db.execute(sql`insert into messages (id, run_id, member, pool, channel, seq, parent_id, depth, frames, payload, status, attempts, created_at, started_at, finished_at)
      select md5('m' || g) || md5('n' || g), 'hist' || (g / ${per} + 1), 'join-words', 'default', 'words', g % ${per},
             md5('p' || g) || md5('q' || g), 3, jsonb_build_array(jsonb_build_object('split', md5('s' || (g / ${per})), 'index', g % ${per}, 'count', ${per})),
             jsonb_build_object('text', 'w' || g), 'done', 1,
             now() - interval '30 days', now() - interval '30 days', now() - interval '30 days'
        from generate_series(${lit(from)}, ${lit(to)}) g`);
    await db.execute(sql`insert into join_parts (run_id, member, key, message_id, seq, skipped)
      select 'hist' || (g / ${per} + 1), 'join-words', md5('s' || (g / ${per})), md5('m' || g) || md5('n' || g), g % ${per}, false
        from generate_series(${lit(from)}, ${lit(to)}) g`);
    console.log(`  history rows ${from}..${to} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  await db.execute(sql`insert into joins (run_id, member, key, expected, received, fired_at)
    select 'hist' || r, 'join-words', md5('s' || (r - 1)), ${per}, ${per}, now() - interval '30 days' from generate_series(1, ${lit(runCount)}) r`);
  await db.execute(sql`vacuum (analyze) messages, join_parts, joins, runs`);
}

console.log(`machine: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const empty = await openWorld('postgres', { batchesInFlight: 2 });
let emptyRun: { seconds: number; exact: boolean };
try {
  emptyRun = await wordSplit(empty);
  console.log(`empty database: ${words} words in ${emptyRun.seconds.toFixed(2)} s, exact ${emptyRun.exact}`);
  await bytesPerMessage(empty, 'as written (with the dead row versions of its status updates)');
  // Compacted: the live rows only, what the trail costs once vacuum has reclaimed the old versions.
  await empty.engine.db.execute(sql`vacuum full messages, join_parts`);
  await bytesPerMessage(empty, 'after vacuum full (live rows only)');
} finally {
  await empty.close();
}
const full = await openWorld('postgres', { batchesInFlight: 2 });
try {
  const started = performance.now();
  console.log(`\nbuilding ${historyRows} rows of history`);
  await buildHistory(full, historyRows);
  console.log(`history built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const withHistory = await wordSplit(full);
  console.log(`with ${historyRows} rows of history: ${words} words in ${withHistory.seconds.toFixed(2)} s, exact ${withHistory.exact}`);
  console.log(`\nhistory/empty time ratio: ${(withHistory.seconds / emptyRun.seconds).toFixed(3)} (target <= 1.10)`);
  if (!emptyRun.exact || !withHistory.exact) process.exitCode = 1;
} finally {
  await full.close();
}
