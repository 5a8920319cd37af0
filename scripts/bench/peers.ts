/**
 * The Postgres-durable queues a user would pick instead of Trellis, each on a `words`-way
 * fan-out/fan-in of the word-split task in a database of its own, with its documented pattern:
 * - pg-boss 10: `insert()` of every child in one call, `work()` with `batchSize`, and the fan-in by
 *   a completion counter (pg-boss has no flows): the batch that takes the counter to zero sends the
 *   join job, which reads the children's results back in order.
 * - graphile-worker 0.17: `addJobs()` in one call, the same counter in the task's own transaction.
 * - DBOS 5: a workflow whose children are steps run concurrently (`Promise.all` of `runStep`), and
 *   a workflow that starts one child workflow per word on a queue and awaits their handles.
 * Returns the same figures as the Trellis scenarios (bench/figures.ts).
 */
import pg from 'pg';
import { createTestDatabase } from '../../packages/engine/test/harness';
import { document, ownCpu, ownPeakRssMb, type Result } from './figures';

const COUNTER = `create table fan_done (idx int primary key, word text not null);
  create table fan_left (id int primary key, n int not null);`;

/** Records `items` as done and says whether they were the last ones (the counter reached zero). */
async function recordDone(q: { query: pg.Pool['query'] } | pg.PoolClient, items: { idx: number; word: string }[]): Promise<boolean> {
  await q.query('insert into fan_done select * from unnest($1::int[], $2::text[]) on conflict do nothing', [items.map((i) => i.idx), items.map((i) => i.word)]);
  const { rows } = await q.query<{ n: number }>('update fan_left set n = n - $1 where id = 1 returning n', [items.length]);
  return rows[0]?.n === 0;
}

async function joined(q: pg.Pool): Promise<string> {
  const { rows } = await q.query<{ text: string }>("select string_agg(word, ' ' order by idx) as text from fan_done");
  return rows[0]?.text ?? '';
}

async function withDatabase<T>(fn: (url: string, pool: pg.Pool) => Promise<T>): Promise<T> {
  const db = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: db.url, max: 10 });
  try {
    await pool.query(COUNTER);
    return await fn(db.url, pool);
  } finally {
    await pool.end();
    await db.drop();
  }
}

function result(scenario: string, started: number, cpu0: number, messages: number, out: string, text: string): Result {
  return { scenario, words: text.split(' ').length, seconds: (performance.now() - started) / 1000, messages, exact: out === text, peakRssMb: ownPeakRssMb(), cpuSeconds: ownCpu() - cpu0 };
}

/** pg-boss: bulk insert, batched workers, counter fan-in. */
export async function pgBoss(words: number): Promise<Result> {
  const { default: PgBoss } = await import('pg-boss');
  return withDatabase(async (url, pool) => {
    const boss = new PgBoss({ connectionString: url, max: 10, supervise: false, schedule: false });
    boss.on('error', (err: Error) => process.stderr.write(`pg-boss: ${err.message}\n`));
    await boss.start();
    try {
      await boss.createQueue('word');
      await boss.createQueue('join');
      const text = document(words);
      const parts = text.split(' ');
      let done: (v: string) => void = () => undefined;
      const finished = new Promise<string>((r) => (done = r));
      const work = { batchSize: 200, pollingIntervalSeconds: 0.5 };
      for (let i = 0; i < 2; i++) {
        await boss.work<{ idx: number; word: string }>('word', work, async (jobs) => {
          if (await recordDone(pool, jobs.map((j) => j.data))) await boss.send('join', {});
        });
      }
      await boss.work('join', work, async () => done(await joined(pool)));
      const cpu0 = ownCpu();
      const started = performance.now();
      await pool.query('insert into fan_left values (1, $1)', [words]);
      await boss.insert(parts.map((word, idx) => ({ name: 'word', data: { idx, word } })));
      return result(`pgboss-${words}`, started, cpu0, words + 1, await finished, text);
    } finally {
      await boss.stop({ graceful: false, wait: true });
    }
  });
}

/** graphile-worker: `addJobs`, counter fan-in inside the task's transaction. */
export async function graphile(words: number): Promise<Result> {
  const { run, makeWorkerUtils } = await import('graphile-worker');
  return withDatabase(async (url, pool) => {
    const text = document(words);
    const parts = text.split(' ');
    let done: (v: string) => void = () => undefined;
    const finished = new Promise<string>((r) => (done = r));
    const runner = await run({
      connectionString: url,
      concurrency: 20,
      noHandleSignals: true,
      pollInterval: 500,
      logger: new (await import('graphile-worker')).Logger(() => () => undefined),
      taskList: {
        word: async (payload, helpers) => {
          const item = payload as { idx: number; word: string };
          const last = await helpers.withPgClient((c) => recordDone(c, [item]));
          if (last) await helpers.addJob('join', {});
        },
        join: async () => done(await joined(pool)),
      },
    });
    const utils = await makeWorkerUtils({ connectionString: url });
    try {
      const cpu0 = ownCpu();
      const started = performance.now();
      await pool.query('insert into fan_left values (1, $1)', [words]);
      await utils.addJobs(parts.map((word, idx) => ({ identifier: 'word', payload: { idx, word } })));
      return result(`graphile-${words}`, started, cpu0, words + 1, await finished, text);
    } finally {
      await utils.release();
      await runner.stop();
    }
  });
}

/** DBOS: `children` = 'steps' (concurrent steps in one workflow) or 'workflows' (one child workflow per word on a queue). */
export async function dbos(words: number, children: 'steps' | 'workflows'): Promise<Result> {
  const { DBOS } = await import('@dbos-inc/dbos-sdk');
  const db = await createTestDatabase();
  try {
    DBOS.setConfig({ name: `bench-${children}`, systemDatabaseUrl: db.url, logLevel: 'error' });
    const child = DBOS.registerWorkflow(async (word: string) => DBOS.runStep(async () => Promise.resolve(word), { name: 'word' }), { name: 'child' });
    const parent = DBOS.registerWorkflow(
      async (parts: string[]) => {
        if (children === 'steps') return (await Promise.all(parts.map((w) => DBOS.runStep(async () => Promise.resolve(w), { name: 'word' })))).join(' ');
        const handles = [];
        for (const w of parts) handles.push(await DBOS.startWorkflow(child, { queueName: 'fan' })(w));
        return (await Promise.all(handles.map((h) => h.getResult()))).join(' ');
      },
      { name: 'parent' },
    );
    await DBOS.launch();
    try {
      if (children === 'workflows') await DBOS.registerQueue('fan', { workerConcurrency: 200, minPollingIntervalMs: 50 });
      const text = document(words);
      const cpu0 = ownCpu();
      const started = performance.now();
      const out = await (await DBOS.startWorkflow(parent)(text.split(' '))).getResult();
      return result(`dbos-${children}-${words}`, started, cpu0, children === 'steps' ? words + 1 : 2 * words + 1, out, text);
    } finally {
      await DBOS.shutdown();
    }
  } finally {
    await db.drop();
  }
}
