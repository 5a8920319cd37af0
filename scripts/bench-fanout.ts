/**
 * `npm run bench:fanout [-- --huge]`: one 2,000- and one 20,000-way fan-out/fan-in through Trellis
 * (word-split on a generated one-line document: one branch per word, rebuilt byte for byte, on
 * Postgres with an in-process worker at concurrency 200), the same 20,000 words served by one and
 * by two worker processes (orchestrator in the scenario's process), and the same 20,000-way
 * fan-out/fan-in directly on BullMQ (a FlowProducer parent with 20,000 children, joined with
 * getChildrenValues) as the baseline. `--huge` adds a 200,000-word document (a few minutes).
 * Each scenario runs in its own process (so peak RSS is its own, or its worker processes' when
 * larger); this process PINGs Redis every 10 ms meanwhile and reports the worst latency. Uses its
 * own database and queue prefixes.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FlowProducer, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { REDIS_URL, WORD_SPLIT, dropPrefix, openWorld, saveOrThrow, spawnWorker, stopWorkers, type WorkerProcess } from '../packages/engine/test/harness';
import { startInProcess } from '../packages/engine/src/runtime/in-process';
import { startOrchestrator } from '../packages/engine/src/runtime/orchestrator';
import { startRun } from '../packages/engine/src/runs/start-run';
import { waitForRun } from '../packages/engine/src/runs/wait-run';

interface Result {
  scenario: string;
  words: number;
  seconds: number;
  messages: number;
  exact: boolean;
  peakRssMb: number;
  /** CPU seconds of the scenario's Node processes (its own and its worker processes'). */
  cpuSeconds: number;
  worstPingMs?: number;
}

/** `n` distinct words on one line: one branch per word. */
function document(n: number): string {
  return Array.from({ length: n }, (_, i) => `w${i.toString(36)}`).join(' ');
}

const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
const ownCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Peak RSS (MB) and CPU seconds of a live worker process, from /proc. */
function procFigures(pid: number): { peakRssMb: number; cpuSeconds: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const hwmKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return { peakRssMb: Math.round(hwmKb / 1024), cpuSeconds: (Number(stat[11]) + Number(stat[12])) / 100 };
}

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
    const peak = Math.max(peakRssMb(), ...figures.map((f) => f.peakRssMb));
    return { scenario, words, seconds, messages: view.counts.published, exact, peakRssMb: peak, cpuSeconds };
  } finally {
    await stopWorkers(procs);
    await runtime.close();
    await world.close();
  }
}

async function bullmq(words: number): Promise<Result> {
  const prefix = `bench${randomBytes(4).toString('hex')}`;
  const connection = { url: REDIS_URL };
  const text = document(words);
  const parts = text.split(' ');
  let done: (v: string) => void = () => undefined;
  const finished = new Promise<string>((r) => (done = r));
  const worker = new Worker(
    'fan',
    async (job: Job) => {
      if (job.name !== 'join') return (job.data as { word: string }).word;
      const values = await job.getChildrenValues<string>();
      // An unordered map: the order has to come from the children's own data.
      const byIndex = new Map<number, string>();
      for (const [key, value] of Object.entries(values)) byIndex.set(Number(key.slice(key.lastIndexOf(':') + 1).replace(/^w/, '')), value);
      const out = [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v).join(' ');
      done(out);
      return out.length;
    },
    { connection, prefix, concurrency: 200 },
  );
  const flow = new FlowProducer({ connection, prefix });
  try {
    const started = performance.now();
    await flow.add({
      name: 'join',
      queueName: 'fan',
      data: {},
      children: parts.map((word, i) => ({ name: 'word', queueName: 'fan', data: { word }, opts: { jobId: `w${i}`, removeOnComplete: false } })),
    });
    const out = await finished;
    const seconds = (performance.now() - started) / 1000;
    return { scenario: `bullmq-${words}`, words, seconds, messages: words + 1, exact: out === text, peakRssMb: peakRssMb(), cpuSeconds: ownCpu() };
  } finally {
    await worker.close();
    await flow.close();
    await dropPrefix(prefix);
  }
}

async function child(scenario: string): Promise<Result> {
  let worst = 0;
  const ping = new Redis(REDIS_URL);
  let pinging = true;
  const loop = (async () => {
    while (pinging) {
      const t = performance.now();
      await ping.ping();
      worst = Math.max(worst, performance.now() - t);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const proc = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--scenario', scenario], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.on('data', (b: Buffer) => (out += b.toString()));
  const code = await new Promise<number | null>((r) => proc.once('exit', r));
  pinging = false;
  await loop;
  ping.disconnect();
  if (code !== 0) throw new Error(`scenario ${scenario} exited with ${code}`);
  return { ...(JSON.parse(out.trim().split('\n').pop() ?? '{}') as Result), worstPingMs: Math.round(worst * 10) / 10 };
}

const { values } = parseArgs({ options: { scenario: { type: 'string' }, huge: { type: 'boolean', default: false } } });
if (values.scenario) {
  const [kind = '', n] = values.scenario.split('-');
  const words = Number(n);
  const result = kind === 'bullmq' ? await bullmq(words) : await trellis(words, kind.startsWith('workers') ? Number(kind.slice(7)) : 0);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

const scenarios = ['trellis-2000', 'trellis-20000', 'bullmq-20000', 'workers1-20000', 'workers2-20000', ...(values.huge ? ['trellis-200000'] : [])];
const results = new Map<string, Result>();
for (const s of scenarios) {
  process.stderr.write(`running ${s}…\n`);
  results.set(s, await child(s));
}
const get = (s: string) => results.get(s) as Result;
const row = (r: Result) =>
  `| ${r.scenario} | ${r.exact ? 'yes' : 'NO'} | ${r.seconds.toFixed(2)} | ${r.messages} | ${Math.round(r.messages / r.seconds)} | ${r.cpuSeconds.toFixed(1)} | ${r.peakRssMb} | ${r.worstPingMs ?? '?'} |`;
const rate = (r: Result) => r.messages / r.seconds;
process.stdout.write(
  [
    `machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
    '| scenario | exact | seconds | messages | messages/s | Node CPU s | peak RSS MB | worst Redis PING ms |',
    '|---|---|---|---|---|---|---|---|',
    ...[...results.values()].map(row),
    '',
    `Trellis/BullMQ time ratio at 20,000: ${(get('trellis-20000').seconds / get('bullmq-20000').seconds).toFixed(2)}`,
    `Trellis 20k/2k time ratio: ${(get('trellis-20000').seconds / get('trellis-2000').seconds).toFixed(2)}`,
    `two worker processes / one, throughput at 20,000: ${(rate(get('workers2-20000')) / rate(get('workers1-20000'))).toFixed(2)}x`,
    ...(values.huge ? [`Trellis 200k/20k time ratio: ${(get('trellis-200000').seconds / get('trellis-20000').seconds).toFixed(2)}`] : []),
  ].join('\n') + '\n',
);
process.exit([...results.values()].every((r) => r.exact) ? 0 : 1);
