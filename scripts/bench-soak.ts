/**
 * `npm run bench:soak [-- --messages N] [--words W] [--in-flight F]`: N messages (default 1,000,000)
 * over many documents of W words (default 120; W + 1 messages each) through the flat word-split
 * (split by word → combine), served by two worker processes (concurrency 200 each) with the
 * orchestrator in this process, F documents in flight at once (default 300; a new one starts as
 * one finishes). Prints: throughput of the first and of the last tenth of the documents, the RSS
 * of every process sampled every 5 s (first, peak and last after warm-up, i.e. after the first
 * tenth), Redis used_memory at the start and at the end, the CPU seconds per message of Node,
 * Postgres and Redis, and whether every document came back exact. Uses its own database and
 * queue prefix. Exits 1 when a document is not exact.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { inArray } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { runs } from '@trellis/db/schema/runs';
import { REDIS_URL, openWorld, saveOrThrow, spawnWorker, stopWorkers } from '../packages/engine/test/harness';
import { startOrchestrator } from '../packages/engine/src/runtime/orchestrator';
import { startRun } from '../packages/engine/src/runs/start-run';
import { FINAL_STATUSES } from '../packages/engine/src/runs/wait-run';
import { document, ownCpu, postgresCpuSeconds, procFigures } from './bench/figures';

const { values } = parseArgs({
  options: { messages: { type: 'string', default: '1000000' }, words: { type: 'string', default: '120' }, 'in-flight': { type: 'string', default: '300' } },
});
const positive = (flag: string, v: string | undefined) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} must be a positive integer, not ${v}`);
  return n;
};
const total = positive('messages', values.messages);
const words = positive('words', values.words);
const inFlight = positive('in-flight', values['in-flight']);
const docs = Math.max(10, Math.ceil(total / (words + 1)));

const MESH = JSON.stringify({
  format: 'trellis.mesh/v1',
  name: 'soak-split',
  members: [
    { id: 'words', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'word', field: 'text' }] },
    { id: 'join', kind: 'combine', merge: { type: 'concat', field: 'text' } },
  ],
  channels: [{ from: 'words', to: 'join' }],
});

async function usedMemory(r: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await r.info('memory'))?.[1] ?? 0);
}
async function redisCpu(r: Redis): Promise<number> {
  const info = await r.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  return field('used_cpu_sys') + field('used_cpu_user');
}

const world = await openWorld('postgres', { batchesInFlight: 2 });
const redis = new Redis(REDIS_URL);
const orchestrator = startOrchestrator(world.engine);
const workers = await Promise.all([0, 1].map(() => spawnWorker(world, { TRELLIS_CONCURRENCY: '200' })));
const procs = [{ name: 'orchestrator (this process)', pid: process.pid }, ...workers.map((w, i) => ({ name: `worker ${i + 1}`, pid: w.pid }))];
const samples = new Map<string, number[]>(procs.map((p) => [p.name, []]));
const sample = () => {
  for (const p of procs) samples.get(p.name)?.push(procFigures(p.pid).rssMb);
};
let exactDocs = 0;
try {
  const meshId = await saveOrThrow(world, MESH);
  const memoryStart = await usedMemory(redis);
  const loadStart = loadavg()[0] ?? 0;
  const cpu0 = { node: ownCpu() + workers.reduce((s, w) => s + procFigures(w.pid).cpuSeconds, 0), pg: postgresCpuSeconds(), redis: await redisCpu(redis) };
  sample();
  const sampler = setInterval(sample, 5_000);
  const started = performance.now();
  const doneAt: number[] = [];
  let samplesAtWarm = -1;
  const open = new Map<string, string>();
  let next = 0;
  const launch = async () => {
    while (open.size < inFlight && next < docs) {
      const text = document(words, next * words);
      next++;
      const { runId } = await startRun(world.engine, { meshId, input: { text } });
      open.set(runId, text);
    }
  };
  await launch();
  while (open.size > 0) {
    await new Promise((r) => setTimeout(r, 100));
    const rows = await world.engine.db.select({ id: runs.id, status: runs.status, output: runs.output }).from(runs).where(inArray(runs.id, [...open.keys()]));
    for (const r of rows) {
      if (!FINAL_STATUSES.includes(r.status)) continue;
      if (r.status === 'done' && (r.output as { text?: string } | null)?.text === open.get(r.id)) exactDocs++;
      open.delete(r.id);
      doneAt.push(performance.now() - started);
      if (doneAt.length === Math.ceil(docs / 10)) samplesAtWarm = samples.get(procs[0]?.name ?? '')?.length ?? 0;
    }
    await launch();
  }
  clearInterval(sampler);
  sample();
  const seconds = (performance.now() - started) / 1000;
  const cpu = {
    node: ownCpu() + workers.reduce((s, w) => s + procFigures(w.pid).cpuSeconds, 0) - cpu0.node,
    pg: postgresCpuSeconds() - cpu0.pg,
    redis: (await redisCpu(redis)) - cpu0.redis,
  };
  // BullMQ removes completed jobs as they finish; give the last removals a moment before reading memory.
  await new Promise((r) => setTimeout(r, 2_000));
  const memoryEnd = await usedMemory(redis);
  const messages = docs * (words + 1);
  const tenth = Math.ceil(docs / 10);
  const rate = (from: number, to: number) => ((to - from) * (words + 1)) / (((doneAt[to - 1] ?? 0) - (from === 0 ? 0 : (doneAt[from - 1] ?? 0))) / 1000);
  const first = rate(0, tenth);
  const last = rate(docs - tenth, docs);
  const mb = (b: number) => (b / 2 ** 20).toFixed(1);
  const lines = [
    `machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB; load average at the start ${loadStart.toFixed(1)}, at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
    `${messages} messages over ${docs} documents of ${words} words, ${inFlight} in flight, two worker processes: ${seconds.toFixed(1)} s, ${Math.round(messages / seconds)} messages/s`,
    `every document exact: ${exactDocs}/${docs} ${exactDocs === docs ? 'PASS' : 'MISS'}`,
    `throughput, first tenth ${Math.round(first)} messages/s, last tenth ${Math.round(last)} messages/s: last/first ${(last / first).toFixed(2)} ${Math.abs(last / first - 1) <= 0.15 ? 'PASS' : 'MISS'} (target within 15%; the first tenth holds the fill of the first ${inFlight} documents in flight)`,
    `Redis used_memory: ${mb(memoryStart)} MB at the start, ${mb(memoryEnd)} MB at the end (${memoryEnd - memoryStart >= 0 ? '+' : ''}${mb(memoryEnd - memoryStart)} MB; machine-wide: other users of this Redis count too)`,
    `CPU per message: Node ${((cpu.node / messages) * 1e6).toFixed(0)} µs, Postgres ${((cpu.pg / messages) * 1e6).toFixed(0)} µs, Redis ${((cpu.redis / messages) * 1e6).toFixed(0)} µs (Postgres and Redis machine-wide)`,
    'RSS MB, sampled every 5 s: process | first | after warm-up (first tenth): min / max | last | peak',
    ...procs.map((p) => {
      const s = samples.get(p.name) ?? [];
      const warm = s.slice(Math.max(0, samplesAtWarm));
      return `  ${p.name} | ${s[0]} | ${Math.min(...warm)} / ${Math.max(...warm)} | ${s.at(-1)} | ${Math.max(...s)}`;
    }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await stopWorkers(workers);
  await orchestrator.close();
  redis.disconnect();
  await world.close();
}
process.exit(exactDocs === docs ? 0 : 1);
