/**
 * `npm run bench:fanout`: one 2,000- and one 20,000-way fan-out/fan-in through Trellis (word-split
 * on a generated one-line document: one branch per word, rebuilt byte for byte, on Postgres with an
 * in-process worker at concurrency 200), and the same 20,000-way fan-out/fan-in directly on BullMQ
 * (a FlowProducer parent with 20,000 children, joined with getChildrenValues) as the baseline.
 * Each scenario runs in its own process (so peak RSS is its own); this process PINGs Redis every
 * 10 ms meanwhile and reports the worst latency. Uses its own database and queue prefixes.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FlowProducer, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { REDIS_URL, WORD_SPLIT, dropPrefix, openWorld, saveOrThrow } from '../packages/engine/test/harness';
import { startInProcess } from '../packages/engine/src/runtime/in-process';
import { startRun } from '../packages/engine/src/runs/start-run';
import { waitForRun } from '../packages/engine/src/runs/wait-run';

interface Result {
  scenario: string;
  words: number;
  seconds: number;
  messages: number;
  exact: boolean;
  peakRssMb: number;
  worstPingMs?: number;
}

/** `n` distinct words on one line: one branch per word. */
function document(n: number): string {
  return Array.from({ length: n }, (_, i) => `w${i.toString(36)}`).join(' ');
}

const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

async function trellis(words: number): Promise<Result> {
  const world = await openWorld('postgres', { batchesInFlight: 2 });
  const runtime = startInProcess(world.engine, { pools: ['default'], concurrency: 200 });
  try {
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const text = document(words);
    const started = performance.now();
    const { runId } = await startRun(world.engine, { meshId, input: { text } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30 * 60_000, pollMs: 20 });
    const seconds = (performance.now() - started) / 1000;
    const exact = view.status === 'done' && (view.output as { text?: string }).text === text;
    return { scenario: `trellis-${words}`, words, seconds, messages: view.counts.published, exact, peakRssMb: peakRssMb() };
  } finally {
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
    return { scenario: `bullmq-${words}`, words, seconds, messages: words + 1, exact: out === text, peakRssMb: peakRssMb() };
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

const { values } = parseArgs({ options: { scenario: { type: 'string' } } });
if (values.scenario) {
  const [kind, n] = values.scenario.split('-');
  const result = kind === 'bullmq' ? await bullmq(Number(n)) : await trellis(Number(n));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

const results: Result[] = [];
for (const s of ['trellis-2000', 'trellis-20000', 'bullmq-20000']) {
  process.stderr.write(`running ${s}…\n`);
  results.push(await child(s));
}
const row = (r: Result) =>
  `| ${r.scenario} | ${r.exact ? 'yes' : 'NO'} | ${r.seconds.toFixed(2)} | ${r.messages} | ${Math.round(r.messages / r.seconds)} | ${r.peakRssMb} | ${r.worstPingMs ?? '?'} |`;
const [t2, t20, b20] = results as [Result, Result, Result];
process.stdout.write(
  [
    `machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB`,
    '| scenario | exact | seconds | messages | messages/s | peak RSS MB | worst Redis PING ms |',
    '|---|---|---|---|---|---|---|',
    ...results.map(row),
    '',
    `Trellis/BullMQ time ratio at 20,000: ${(t20.seconds / b20.seconds).toFixed(2)}`,
    `Trellis 20k/2k time ratio: ${(t20.seconds / t2.seconds).toFixed(2)}`,
  ].join('\n') + '\n',
);
process.exit(results.every((r) => r.exact) ? 0 : 1);
