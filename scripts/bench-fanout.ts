/**
 * `npm run bench:fanout [-- --only split,docs,heavy,code,peers,workers] [--huge] [--code-words N] [--heavy-words N]`:
 * Trellis against raw BullMQ and the Postgres-durable peers, in one run so every ratio is taken
 * against a baseline measured minutes apart on the same machine.
 * - split: one 2,000- and one 20,000-way fan-out/fan-in through Trellis (word-split on a generated
 *   one-line document: one branch per word, rebuilt byte for byte, on Postgres with an in-process
 *   worker at concurrency 200), against the same 20,000-way fan-out/fan-in on BullMQ (a
 *   FlowProducer parent with 20,000 children, joined with getChildrenValues). `--huge` adds a
 *   200,000-word document (a few minutes).
 * - workers: the same 20,000 words served by one and by two worker processes.
 * - docs: 300 documents of 120 words started at once on one worker, against 300 BullMQ flows.
 * - heavy: split → an agent member (`demo` model) on its own pool → combine, against a flow whose
 *   children run on their own queue (bench/shapes.ts).
 * - code: 20,000 words (`--code-words`) each through a one-line `code` step, against the heavy branch.
 * - peers: pg-boss, graphile-worker and DBOS on the 20,000-way fan-out/fan-in (bench/peers.ts).
 * Each scenario runs in its own process (so peak RSS is its own, or its worker processes' when
 * larger); this process PINGs Redis every 10 ms meanwhile and reports the worst latency, and reads
 * the CPU Redis (INFO cpu) and Postgres (/proc) spent. Each scenario has its own database and queue
 * prefix (or schema), removed afterwards. Prints a table and the targets of the throughput issue
 * with PASS/MISS; exits 1 when an output is not exact.
 */
import { spawn } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { REDIS_URL, WORD_SPLIT, openWorld, saveOrThrow, spawnWorker, stopWorkers, type WorkerProcess } from '../packages/engine/test/harness';
import { startInProcess } from '../packages/engine/src/runtime/in-process';
import { startOrchestrator } from '../packages/engine/src/runtime/orchestrator';
import { startRun } from '../packages/engine/src/runs/start-run';
import { waitForRun } from '../packages/engine/src/runs/wait-run';
import { document, ownCpu, ownPeakRssMb, postgresCpuSeconds, procFigures, type Result } from './bench/figures';
import { bullmqFlows, trellisCode, trellisHeavy, trellisManyDocs } from './bench/shapes';
import { dbos, graphile, pgBoss } from './bench/peers';
import { printReport } from './bench/report';

/**
 * Word-split on a `words`-word document. `workers` = 0: worker and orchestrator in this process;
 * otherwise that many worker processes (concurrency 200 each) and the orchestrator here.
 */
async function trellis(words: number, workers: number): Promise<Result> {
  const world = await openWorld('postgres', { batchesInFlight: 2 });
  const runtime = workers === 0 ? startInProcess(world.engine, { pools: ['default'], concurrency: 200 }) : startOrchestrator(world.engine);
  let procs: WorkerProcess[] = [];
  try {
    procs = await Promise.all(Array.from({ length: workers }, () => spawnWorker(world, { TRELLIS_CONCURRENCY: '200' })));
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const text = document(words);
    const cpuBefore = ownCpu() + procs.reduce((sum, p) => sum + procFigures(p.pid).cpuSeconds, 0);
    const started = performance.now();
    const { runId } = await startRun(world.engine, { meshId, input: { text } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30 * 60_000, pollMs: 20 });
    const seconds = (performance.now() - started) / 1000;
    const figures = procs.map((p) => procFigures(p.pid));
    const cpuSeconds = ownCpu() + figures.reduce((sum, f) => sum + f.cpuSeconds, 0) - cpuBefore;
    const exact = view.status === 'done' && (view.output as { text?: string }).text === text;
    const scenario = workers === 0 ? `trellis-${words}` : `workers${workers}-${words}`;
    const peak = Math.max(ownPeakRssMb(), ...figures.map((f) => f.peakRssMb));
    return { scenario, words, seconds, messages: view.counts.published, exact, peakRssMb: peak, cpuSeconds };
  } finally {
    await stopWorkers(procs);
    await runtime.close();
    await world.close();
  }
}

async function redisCpu(r: Redis): Promise<number> {
  const info = await r.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  return field('used_cpu_sys') + field('used_cpu_user');
}

async function child(scenario: string, passOn: string[]): Promise<Result> {
  let worst = 0;
  const ping = new Redis(REDIS_URL);
  const load = loadavg()[0] ?? 0;
  const redisBefore = await redisCpu(ping);
  const pgBefore = postgresCpuSeconds();
  let pinging = true;
  const loop = (async () => {
    while (pinging) {
      const t = performance.now();
      await ping.ping();
      worst = Math.max(worst, performance.now() - t);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const proc = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--scenario', scenario, ...passOn], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.on('data', (b: Buffer) => (out += b.toString()));
  const code = await new Promise<number | null>((r) => proc.once('exit', r));
  pinging = false;
  await loop;
  const redisCpuSeconds = (await redisCpu(ping)) - redisBefore;
  ping.disconnect();
  const pgCpuSeconds = postgresCpuSeconds() - pgBefore;
  const worstPingMs = Math.round(worst * 10) / 10;
  // A failed scenario is a row that says so, not the end of the run: the others are still worth their figures.
  if (code !== 0) return { scenario, words: 0, seconds: NaN, messages: 0, exact: false, peakRssMb: 0, cpuSeconds: NaN, worstPingMs, load, redisCpuSeconds, pgCpuSeconds, failed: `exited with ${code}` };
  const result = JSON.parse(out.trim().split('\n').pop() ?? '{}') as Result;
  return { ...result, worstPingMs, load, redisCpuSeconds, pgCpuSeconds };
}

const { values } = parseArgs({
  options: {
    scenario: { type: 'string' },
    only: { type: 'string' },
    huge: { type: 'boolean', default: false },
    'code-words': { type: 'string', default: '20000' },
    'peer-words': { type: 'string', default: '20000' },
    'heavy-words': { type: 'string', default: '20000' },
  },
});
const codeWords = Number(values['code-words']);
const peerWords = Number(values['peer-words']);
const heavyWords = Number(values['heavy-words']);
if (!Number.isInteger(codeWords) || codeWords < 1) throw new Error(`--code-words must be a positive integer, not ${values['code-words']}`);
if (!Number.isInteger(peerWords) || peerWords < 1) throw new Error(`--peer-words must be a positive integer, not ${values['peer-words']}`);
if (!Number.isInteger(heavyWords) || heavyWords < 1) throw new Error(`--heavy-words must be a positive integer, not ${values['heavy-words']}`);

/** Every scenario by name, with its group (for `--only`), in the order they run: peers and Trellis interleaved. */
const SCENARIOS: [group: string, name: string, run: () => Promise<Result>][] = [
  ['split', 'bullmq-20000', () => bullmqFlows(1, 20_000, false)],
  ['split', 'trellis-20000', () => trellis(20_000, 0)],
  ['peers', `pgboss-${peerWords}`, () => pgBoss(peerWords)],
  ['split', 'trellis-2000', () => trellis(2_000, 0)],
  ['peers', `graphile-${peerWords}`, () => graphile(peerWords)],
  ['docs', 'bullmq-docs300x120', () => bullmqFlows(300, 120, false)],
  ['docs', 'trellis-docs300x120', () => trellisManyDocs(300, 120)],
  ['peers', `dbos-steps-${peerWords}`, () => dbos(peerWords, 'steps')],
  ['heavy', `bullmq-heavy-${heavyWords}`, () => bullmqFlows(1, heavyWords, true)],
  ['heavy', `trellis-heavy-${heavyWords}`, () => trellisHeavy(heavyWords)],
  ['peers', `dbos-workflows-${peerWords}`, () => dbos(peerWords, 'workflows')],
  ['workers', 'workers1-20000', () => trellis(20_000, 1)],
  ['workers', 'workers2-20000', () => trellis(20_000, 2)],
  ['code', `trellis-code-${codeWords}`, () => trellisCode(codeWords)],
  ['huge', 'trellis-200000', () => trellis(200_000, 0)],
];

if (values.scenario) {
  const found = SCENARIOS.find(([, name]) => name === values.scenario);
  if (!found) throw new Error(`--scenario: no scenario named ${values.scenario}`);
  process.stdout.write(`${JSON.stringify(await found[2]())}\n`);
  process.exit(0);
}

const groups = new Set((values.only ?? 'split,docs,heavy,code,peers,workers').split(',').map((g) => g.trim()));
if (values.huge) groups.add('huge');
const known = new Set(SCENARIOS.map(([g]) => g));
for (const g of groups) if (!known.has(g)) throw new Error(`--only: no group ${g} (groups: ${[...known].join(', ')})`);
const passOn = ['--code-words', String(codeWords), '--peer-words', String(peerWords), '--heavy-words', String(heavyWords)];
const results = new Map<string, Result>();
for (const [group, name] of SCENARIOS) {
  if (!groups.has(group)) continue;
  process.stderr.write(`running ${name} (load ${loadavg()[0]?.toFixed(1)})…\n`);
  results.set(name, await child(name, passOn));
}
const machine = `machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`;
process.stdout.write(printReport(machine, results, { codeWords, peerWords, heavyWords }));
process.exit([...results.values()].every((r) => r.exact) ? 0 : 1);
