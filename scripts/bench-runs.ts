/**
 * `npm run bench:runs`: the Runs tab query (engine ops/search-runs.ts, the same code the tRPC
 * procedure runs) and the exceptions feed at 100,000 runs on Postgres. Seeds 100,000 runs over
 * 20 meshes and 30 days (85 % done, 12 % failed over every cause, 3 % stalled or running) in its
 * own database with one `insert … select generate_series`, analyzes, then times each filter combo
 * 30 times and prints p50/p95 (ms, page + total count) and whether the plan uses an index (EXPLAIN).
 * Options: `--runs <n>` (default 100000), `--repeat <n>` (default 30), `--keep` (keep the database).
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { sql, type SQL } from 'drizzle-orm';
import { CAUSES } from '@trellis/mesh/causes';
import { openWorld } from '../packages/engine/test/harness';
import { exceptionsFeed } from '../packages/engine/src/ops/exceptions-feed';
import { searchFilter, searchOrder, searchRuns, type SearchRunsInput } from '../packages/engine/src/ops/search-runs';
import { rows } from '../packages/engine/src/kernel/sql';
import { runs } from '../packages/db/src/schema/runs';

const { values: args } = parseArgs({
  options: { runs: { type: 'string', default: '100000' }, repeat: { type: 'string', default: '30' }, keep: { type: 'boolean', default: false } },
});
const N = Number(args.runs);
const REPEAT = Number(args.repeat);
if (!Number.isInteger(N) || N < 1000) throw new Error('--runs: expected an integer of at least 1000');
if (!Number.isInteger(REPEAT) || REPEAT < 1) throw new Error('--repeat: expected a positive integer');

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function main(): Promise<void> {
  const world = await openWorld('postgres');
  const db = world.engine.db;
  try {
    const t0 = performance.now();
    const causes = `{${CAUSES.join(',')}}`;
    // Deterministic pseudo-random spread (hashes of i): 20 meshes, 30 days, causes over failed runs.
    await db.execute(sql`
      insert into runs (id, mesh_id, mesh_name, mesh_version, status, cause, cause_member, cause_message, input_name, input,
                        created_by, created_at, started_at, ended_at, moved_at)
      select id, mesh_id, mesh_name, 1, status, cause,
             case when cause is null then null else 'member-' || (h % 7) end,
             case when cause is null then null else 'The run failed at member-' || (h % 7) || '.' end,
             'document-' || i || '.txt', '{}'::jsonb, null, created, created,
             case when status in ('done', 'failed') then created + ((h % 600) || ' seconds')::interval end,
             created + ((h % 600) || ' seconds')::interval
        from (
          select i, h, 'r' || lpad(to_hex(i * 2654435761 % 4294967296), 8, '0') || lpad(i::text, 7, '0') as id,
                 'mesh-' || (h % 20) as mesh_id, 'mesh ' || (h % 20) as mesh_name,
                 now() - ((h % (30 * 86400)) || ' seconds')::interval as created,
                 case when h % 100 < 85 then 'done' when h % 100 < 97 then 'failed' when h % 100 < 99 then 'stalled' else 'running' end as status,
                 case when h % 100 between 85 and 96 then (${causes}::text[])[1 + (h / 100) % 11]
                      when h % 100 between 97 and 98 then 'stalled' end as cause
            from (select i, abs(hashint4(i)) as h from generate_series(1, ${N}) as i) s
        ) x`);
    await db.execute(sql`analyze runs`);
    const seeded = await rows<{ n: number }>(db, sql`select count(*)::int as n from runs`);
    console.log(`seeded ${seeded[0]?.n ?? 0} runs in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const day = 86_400_000;
    const now = Date.now();
    const combos: [string, SearchRunsInput][] = [
      ['newest first, page 1', {}],
      ['newest first, page 40 (offset 1,000)', { offset: 1000 }],
      ['status failed', { status: 'failed' }],
      ['mesh', { meshId: 'mesh-7' }],
      ['mesh + status failed', { meshId: 'mesh-7', status: 'failed' }],
      ['cause timed_out', { cause: 'timed_out' }],
      ['severity critical', { severity: 'critical' }],
      ['last 24 h', { from: new Date(now - day) }],
      ['mesh + last 7 days', { meshId: 'mesh-3', from: new Date(now - 7 * day) }],
      ['search run id prefix', { search: 'r1a' }],
      ['search input name prefix', { search: 'document-4242' }],
      ['sort by ended', { sort: 'ended' }],
      ['sort by duration', { sort: 'duration' }],
      ['sort by status', { sort: 'status', direction: 'asc' }],
    ];
    console.log(`\n| Runs tab query (25 a page + total) | p50 ms | p95 ms | matches | index used |\n|---|---|---|---|---|`);
    for (const [name, input] of combos) {
      const times: number[] = [];
      let total = 0;
      for (let i = 0; i < REPEAT; i++) {
        const start = performance.now();
        total = (await searchRuns(db, { ...input, limit: 25 })).total;
        times.push(performance.now() - start);
      }
      times.sort((a, b) => a - b);
      const plan = await explain(db, input);
      console.log(`| ${name} | ${pct(times, 50).toFixed(1)} | ${pct(times, 95).toFixed(1)} | ${total.toLocaleString('en')} | ${plan} |`);
    }
    const feedTimes: Record<string, number[]> = { today: [], '7 days': [], '30 days': [] };
    const startToday = new Date();
    startToday.setHours(0, 0, 0, 0);
    for (let i = 0; i < REPEAT; i++) {
      for (const [name, from] of [['today', startToday.getTime()], ['7 days', now - 7 * day], ['30 days', now - 30 * day]] as const) {
        const start = performance.now();
        await exceptionsFeed(db, { from: new Date(from), to: new Date(now) });
        feedTimes[name]?.push(performance.now() - start);
      }
    }
    console.log(`\n| Exceptions feed (one query) | p50 ms | p95 ms |\n|---|---|---|`);
    for (const [name, t] of Object.entries(feedTimes)) {
      t.sort((a, b) => a - b);
      console.log(`| ${name} | ${pct(t, 50).toFixed(1)} | ${pct(t, 95).toFixed(1)} |`);
    }
  } finally {
    if (args.keep) console.log(`kept database ${world.databaseName ?? ''}`);
    else await world.close();
  }
}

/** The indexes the page query's plan scans (EXPLAIN of the same where/order by/limit). */
async function explain(db: Parameters<typeof rows>[0], input: SearchRunsInput): Promise<string> {
  const where: SQL | undefined = searchFilter(input);
  const order = sql.join(searchOrder(input), sql`, `);
  const query = sql`explain select * from ${runs} ${where ? sql`where ${where}` : sql``} order by ${order} limit 25 offset ${input.offset ?? 0}`;
  const plan = (await rows<{ 'QUERY PLAN': string }>(db, query)).map((r) => r['QUERY PLAN']).join('\n');
  const used = [...plan.matchAll(/(?:Index|Index Only|Bitmap Index) Scan(?: Backward)? (?:using|on) (\w+)/g)].map((m) => m[1]);
  return used.length ? [...new Set(used)].join(', ') : plan.includes('Seq Scan') ? 'seq scan' : 'none';
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
