/**
 * The chaos drill behind `npm run chaos` and its short integration test: word-split on a document
 * with three worker processes on Postgres, one fault per round, N documents per round; prints what
 * came back exact and what the message rows say (published, delivered, lost, duplicate joins).
 */
import pg from 'pg';
import { PG_ADMIN_URL, WORD_SPLIT, exactness, openWorld, saveOrThrow, spawnWorker, stopWorkers, type TestWorld, type WorkerProcess } from './harness';
import { startRun } from '../src/runs/start-run';
import { waitForRun } from '../src/runs/wait-run';
import { startOrchestrator } from '../src/runtime/orchestrator';
import { rows } from '../src/kernel/sql';
import { sql } from 'drizzle-orm';

/** The faults, one per round. */
export const FAULTS = ['killed', 'db-cut', 'restarted', 'frozen'] as const;
export type Fault = (typeof FAULTS)[number];

/** Options of a drill. */
export interface ChaosOptions {
  /** The document every run splits and rebuilds. */
  doc: Buffer;
  /** Documents per fault. */
  docs: number;
  /** How long the frozen worker stays stopped (SIGSTOP … SIGCONT). */
  freezeMs: number;
  /** Worker lock settings (env strings), e.g. short ones for the test; production defaults when absent. */
  workerEnv?: Record<string, string>;
  faults?: readonly Fault[];
  /** Longest wait for a round's runs to end. */
  timeoutMs?: number;
  /** Progress lines go here. */
  say?: (line: string) => void;
}

/** One row of the table. */
export interface ChaosRow {
  fault: Fault;
  exact: number;
  docs: number;
  published: number;
  delivered: number;
  lost: number;
  duplicateJoins: number;
  seconds: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function doneCount(world: TestWorld, runIds: string[]): Promise<number> {
  const [r] = await rows<{ n: number }>(
    world.engine.db,
    sql`select count(*)::int as n from messages where status = 'done' and run_id = any(${`{${runIds.join(',')}}`}::text[])`,
  );
  return r?.n ?? 0;
}

async function cutDatabase(name: string): Promise<number> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  let n = 0;
  try {
    for (let i = 0; i < 3; i++) {
      const res = await admin.query(
        'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [name],
      );
      n += (res.rows[0] as { n: number }).n;
      await sleep(1000);
    }
  } finally {
    await admin.end();
  }
  return n;
}

/** Runs one round: three workers, `docs` runs, the fault once the runs are under way. */
async function round(fault: Fault, o: ChaosOptions): Promise<ChaosRow> {
  const world = await openWorld('postgres', { tickMs: 500, relayAfterMs: 2_000 });
  let workers: WorkerProcess[] = [];
  const orchestrator = startOrchestrator(world.engine);
  const started = Date.now();
  try {
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    workers = await Promise.all([0, 1, 2].map(() => spawnWorker(world, o.workerEnv ?? {})));
    const runIds: string[] = [];
    for (let i = 0; i < o.docs; i++) runIds.push((await startRun(world.engine, { meshId, input: { bytes: o.doc } })).runId);
    while ((await doneCount(world, runIds)) < 300) await sleep(20);
    const victim = workers[0] as WorkerProcess;
    if (fault === 'killed') victim.signal('SIGKILL');
    else if (fault === 'restarted') {
      victim.signal('SIGKILL');
      await victim.exited;
      workers.push(await spawnWorker(world, o.workerEnv ?? {}));
    } else if (fault === 'db-cut') await cutDatabase(world.databaseName ?? '');
    else {
      victim.signal('SIGSTOP');
      await sleep(o.freezeMs);
      victim.signal('SIGCONT');
    }
    o.say?.(`${fault}: fault applied after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const row: ChaosRow = { fault, exact: 0, docs: o.docs, published: 0, delivered: 0, lost: 0, duplicateJoins: 0, seconds: 0 };
    const deadline = Date.now() + (o.timeoutMs ?? 600_000);
    for (const runId of runIds) {
      const view = await waitForRun(world.engine.db, runId, { timeoutMs: Math.max(deadline - Date.now(), 1) });
      const text = (view.output as { text?: unknown } | null)?.text;
      if (view.status === 'done' && typeof text === 'string' && Buffer.from(text, 'utf8').equals(o.doc)) row.exact++;
      const ex = await exactness(world.engine.db, runId);
      row.published += ex.published;
      row.delivered += ex.delivered;
      row.lost += view.counts.lost + view.counts.deadLettered + (view.status === 'done' ? 0 : ex.notDone);
      row.duplicateJoins += ex.duplicateJoins;
    }
    row.seconds = (Date.now() - started) / 1000;
    return row;
  } finally {
    await stopWorkers(workers);
    await orchestrator.close();
    await world.close();
  }
}

/** Runs every fault's round in turn and returns the table's rows. */
export async function runChaos(o: ChaosOptions): Promise<ChaosRow[]> {
  const out: ChaosRow[] = [];
  for (const fault of o.faults ?? FAULTS) {
    const row = await round(fault, o);
    o.say?.(`${fault}: ${row.exact}/${row.docs} exact in ${row.seconds.toFixed(1)} s`);
    out.push(row);
  }
  return out;
}

/** The table as text. */
export function chaosTable(table: readonly ChaosRow[]): string {
  const head = ['fault', 'exact / N', 'published', 'delivered', 'lost', 'duplicate joins', 'seconds'];
  const body = table.map((r) => [r.fault, `${r.exact} / ${r.docs}`, r.published, r.delivered, r.lost, r.duplicateJoins, r.seconds.toFixed(1)].map(String));
  const lines = [head, head.map(() => '---'), ...body].map((cells) => `| ${cells.join(' | ')} |`);
  return lines.join('\n');
}
