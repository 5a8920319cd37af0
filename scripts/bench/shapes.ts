/**
 * The Trellis shapes of `npm run bench:fanout` beside word-split, each with its BullMQ equivalent:
 * - many documents: `docs` documents of `words` words started at once on one worker (in this
 *   process, concurrency 200), against as many BullMQ FlowProducer flows on one Worker;
 * - heavy branch: split → an agent member on the built-in `demo` model on its own `agents` pool →
 *   combine, against a flow whose children run on their own `agents` queue and Worker;
 * - code step: split → a workflow member with one one-line `code` step → combine (reported
 *   against the heavy branch).
 * Uses its own database and queue prefixes (the harness's), dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import { count, inArray } from 'drizzle-orm';
import { FlowProducer, Worker, type Job } from 'bullmq';
import { messages } from '@trellis/db/schema/messages';
import { runs } from '@trellis/db/schema/runs';
import { REDIS_URL, dropPrefix, openWorld, saveOrThrow, type TestWorld } from '../../packages/engine/test/harness';
import { startInProcess } from '../../packages/engine/src/runtime/in-process';
import { startRun } from '../../packages/engine/src/runs/start-run';
import { FINAL_STATUSES } from '../../packages/engine/src/runs/wait-run';
import { document, ownCpu, ownPeakRssMb, type Result } from './figures';

const split = { id: 'words', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'word', field: 'text' }] };
const join = { id: 'join', kind: 'combine', merge: { type: 'concat', field: 'text' } };

/** split → `middle` → combine, as a mesh file. */
function throughMesh(name: string, middle: Record<string, unknown>): string {
  return JSON.stringify({
    format: 'trellis.mesh/v1',
    name,
    members: [split, { id: 'each', ...middle }, join],
    channels: [
      { from: 'words', to: 'each' },
      { from: 'each', to: 'join' },
    ],
  });
}

/** The heavy-branch mesh: an agent member on the demo model, on its own pool. */
export const HEAVY_BRANCH = throughMesh('heavy-branch', { kind: 'agent', model: 'demo', pool: 'agents' });
/** The code-step mesh: a one-line code step per word. */
export const CODE_STEP = throughMesh('code-step', { kind: 'workflow', steps: [{ type: 'code', source: 'return payload' }] });

/** Runs `texts` through `mesh` at once on an in-process runtime serving `pools`, checks every output byte for byte. */
async function trellisRuns(scenario: string, mesh: string, texts: string[], pools: string[]): Promise<Result> {
  const world: TestWorld = await openWorld('postgres', { batchesInFlight: 2 });
  const runtime = startInProcess(world.engine, { pools, concurrency: 200 });
  try {
    const meshId = await saveOrThrow(world, mesh);
    const cpuBefore = ownCpu();
    const started = performance.now();
    // All started before any is awaited, 25 start transactions at a time (the engine's pool is small; a loaded machine times out a 300-wide burst).
    const ids: string[] = [];
    for (let i = 0; i < texts.length; i += 25) {
      ids.push(...(await Promise.all(texts.slice(i, i + 25).map((text) => startRun(world.engine, { meshId, input: { text } }).then((r) => r.runId)))));
    }
    const db = world.engine.db;
    for (;;) {
      const rows = await db.select({ id: runs.id, status: runs.status, output: runs.output }).from(runs).where(inArray(runs.id, ids));
      if (rows.every((r) => FINAL_STATUSES.includes(r.status))) {
        const seconds = (performance.now() - started) / 1000;
        const byId = new Map(rows.map((r) => [r.id, r]));
        const exact = ids.every((id, i) => byId.get(id)?.status === 'done' && (byId.get(id)?.output as { text?: string } | null)?.text === texts[i]);
        const [moved] = await db.select({ n: count() }).from(messages);
        return { scenario, words: texts.reduce((n, t) => n + t.split(' ').length, 0), seconds, messages: moved?.n ?? 0, exact, peakRssMb: ownPeakRssMb(), cpuSeconds: ownCpu() - cpuBefore };
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await runtime.close();
    await world.close();
  }
}

/** `docs` documents of `words` words each, started at once. */
export function trellisManyDocs(docs: number, words: number): Promise<Result> {
  const texts = Array.from({ length: docs }, (_, d) => document(words, d * words));
  return trellisRuns(`trellis-docs${docs}x${words}`, WORD_SPLIT_FLAT, texts, ['default']);
}

/** The flat word-split (split by word → combine), the many-documents shape's mesh. */
const WORD_SPLIT_FLAT = JSON.stringify({ format: 'trellis.mesh/v1', name: 'flat-split', members: [split, join], channels: [{ from: 'words', to: 'join' }] });

/** One `words`-word document through the heavy branch. */
export function trellisHeavy(words: number): Promise<Result> {
  return trellisRuns(`trellis-heavy-${words}`, HEAVY_BRANCH, [document(words)], ['default', 'agents']);
}

/** One `words`-word document through the code step. */
export function trellisCode(words: number): Promise<Result> {
  return trellisRuns(`trellis-code-${words}`, CODE_STEP, [document(words)], ['default']);
}

/**
 * BullMQ flows: `docs` parents of `words` children each. `heavy`: the children run on their own
 * `agents` queue and Worker and answer like the demo agent (`{ ...data, agent }`).
 */
export async function bullmqFlows(docs: number, words: number, heavy: boolean): Promise<Result> {
  const prefix = `{bench${randomBytes(4).toString('hex')}}`;
  const connection = { url: REDIS_URL };
  const texts = Array.from({ length: docs }, (_, d) => document(words, d * words));
  const outs = new Map<number, string>();
  let done: () => void = () => undefined;
  const finished = new Promise<void>((r) => (done = r));
  const joinWorker = new Worker(
    'fan',
    async (job: Job) => {
      if (job.name === 'word') return { text: (job.data as { word: string }).word };
      const values = await job.getChildrenValues<{ text: string }>();
      // An unordered map: the order comes from the children's ids (`<doc>-<index>`).
      const parts = Object.entries(values).map(([key, v]) => [Number(key.slice(key.lastIndexOf('-') + 1)), v.text] as const);
      outs.set((job.data as { doc: number }).doc, parts.sort((a, b) => a[0] - b[0]).map(([, t]) => t).join(' '));
      if (outs.size === docs) done();
      return outs.size;
    },
    { connection, prefix, concurrency: 200 },
  );
  const agentWorker = heavy ? new Worker('agents', (job: Job) => Promise.resolve({ text: (job.data as { word: string }).word, agent: 'each' }), { connection, prefix, concurrency: 200 }) : undefined;
  const flow = new FlowProducer({ connection, prefix });
  try {
    const cpuBefore = ownCpu();
    const started = performance.now();
    await flow.addBulk(
      texts.map((text, doc) => ({
        name: 'join',
        queueName: 'fan',
        data: { doc },
        children: text.split(' ').map((word, i) => ({ name: 'word', queueName: heavy ? 'agents' : 'fan', data: { word }, opts: { jobId: `${doc}-${i}`, removeOnComplete: false } })),
      })),
    );
    await finished;
    const seconds = (performance.now() - started) / 1000;
    const exact = texts.every((t, d) => outs.get(d) === t);
    const scenario = heavy ? `bullmq-heavy-${words}` : docs === 1 ? `bullmq-${words}` : `bullmq-docs${docs}x${words}`;
    return { scenario, words: docs * words, seconds, messages: docs * (words + 1), exact, peakRssMb: ownPeakRssMb(), cpuSeconds: ownCpu() - cpuBefore };
  } finally {
    await joinWorker.close();
    await agentWorker?.close();
    await flow.close();
    await dropPrefix(prefix);
  }
}
