/**
 * `npm run bench:priority`: priority lanes (engine kernel/priority.ts) under a backlog, on Postgres
 * and Redis, in its own database and queue prefix. A run splits its input into one heavy agent
 * message per word on pool `work`, its head (an agent) on that pool too (the agent sleeps `--step-ms`
 * per message); one worker serves the
 * pool with `--concurrency` slots. Two phases in the same process, each on a fresh backlog of
 * `--backlog` parts:
 * - FIFO baseline (urgent off): a second normal run is started behind the backlog;
 * - urgent: a run of an urgent mesh is started behind the backlog.
 * For each it prints the time from the second run's start to its first message starting, in ms and
 * in worker-slot units (one slot unit = the mean time one slot spent per message over the second
 * half of the warm-up, i.e. slots × elapsed ÷ messages started), and the normal work's share of the messages
 * started while the second run's messages were starting, against TRELLIS_RESERVED_SHARE.
 * Options: `--backlog <n>` (default 5000), `--probe <n>` parts of the second run (default 200),
 * `--concurrency <n>` (default 32), `--step-ms <n>` (default 20), `--share <0..1>` (default 0.2).
 */
import { parseArgs } from 'node:util';
import { openWorld } from '../packages/engine/test/harness';
import type { AgentRunner } from '../packages/engine/src/kernel/engine';
import { saveMesh } from '../packages/engine/src/meshes/save-mesh';
import { setMeshUrgent } from '../packages/engine/src/meshes/set-urgent';
import { startRun } from '../packages/engine/src/runs/start-run';
import { waitForRun } from '../packages/engine/src/runs/wait-run';
import { servePools } from '../packages/engine/src/runtime/pools';
import { startOrchestrator } from '../packages/engine/src/runtime/orchestrator';

const { values: args } = parseArgs({
  options: {
    backlog: { type: 'string', default: '5000' },
    probe: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '32' },
    'step-ms': { type: 'string', default: '20' },
    share: { type: 'string', default: '0.2' },
  },
});
const BACKLOG = Number(args.backlog);
const PROBE = Number(args.probe);
const SLOTS = Number(args.concurrency);
const STEP_MS = Number(args['step-ms']);
const SHARE = Number(args.share);
for (const [name, v, min] of [
  ['--backlog', BACKLOG, 100],
  ['--probe', PROBE, 10],
  ['--concurrency', SLOTS, 2],
  ['--step-ms', STEP_MS, 0],
] as const) {
  if (!Number.isInteger(v) || v < min) throw new Error(`${name}: expected an integer of at least ${min}, got ${String(v)}`);
}
if (!(SHARE > 0 && SHARE < 1)) throw new Error(`--share: expected a share between 0 and 1, got ${String(args.share)}`);

// The head is on the backlogged pool too, so a run's first message is one that must get past the backlog.
const mesh = (name: string) => ({
  format: 'trellis.mesh/v1',
  name,
  members: [
    { id: 'gate', kind: 'agent', model: 'demo', pool: 'work', head: true },
    { id: 'split', kind: 'workflow', steps: [{ type: 'split', by: 'word', field: 'text' }] },
    { id: 'slow', kind: 'agent', model: 'demo', pool: 'work' },
  ],
  channels: [
    { from: 'gate', to: 'split' },
    { from: 'split', to: 'slow' },
  ],
});
const words = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');

interface Start {
  tag: string;
  at: number;
}

/** What one phase measured. */
interface Phase {
  name: string;
  firstStartMs: number;
  slotMs: number;
  normalShare: number;
  backlogLeft: number;
}

async function main(): Promise<void> {
  const starts: Start[] = [];
  const runAgent: AgentRunner = async (_member, payload) => {
    const text = (payload as { text?: unknown }).text;
    starts.push({ tag: typeof text === 'string' ? text.slice(0, 1) : '?', at: Date.now() });
    if (STEP_MS > 0) await new Promise((r) => setTimeout(r, STEP_MS));
    return payload;
  };
  const world = await openWorld('postgres', { runAgent, reservedShare: SHARE });
  const { engine } = world;
  const ids: Record<string, string> = {};
  for (const name of ['backlog', 'probe', 'hurry']) {
    const saved = await saveMesh(engine.db, { definition: mesh(name) });
    if (!saved.ok) throw new Error(`mesh ${name} refused: ${saved.message}`);
    ids[name] = saved.meshId;
  }
  await setMeshUrgent(engine.db, { meshId: ids.hurry ?? '', urgent: true, actor: { id: null, email: null } });
  const workers = servePools(engine, ['default', 'work'], { concurrency: SLOTS });
  const orchestrator = startOrchestrator(engine);
  const phases: Phase[] = [];
  try {
    for (const [name, probeMesh, tag] of [
      ['FIFO baseline (urgent off)', 'probe', 'p'],
      ['urgent lane', 'hurry', 'u'],
    ] as const) {
      starts.length = 0;
      const t0 = Date.now();
      const backlog = await startRun(engine, { meshId: ids.backlog ?? '', input: { text: words('b', BACKLOG) } });
      // Steady state first: a tenth of the backlog started.
      while (starts.length < BACKLOG / 10) await new Promise((r) => setTimeout(r, 20));
      const warm = starts.length;
      const probeAt = Date.now();
      // Over the second half of the warm-up: the head and the split are behind it.
      const from = Math.floor(warm / 2);
      const slotMs = (SLOTS * (probeAt - (starts[from]?.at ?? t0))) / (warm - from);
      const probe = await startRun(engine, { meshId: ids[probeMesh] ?? '', input: { text: words(tag, PROBE) } });
      await waitForRun(engine.db, probe.runId, { timeoutMs: 600_000 });
      const mine = starts.filter((s) => s.tag === tag);
      const first = mine[0]?.at ?? NaN;
      const last = mine[mine.length - 1]?.at ?? NaN;
      const normalDuring = starts.filter((s) => s.tag === 'b' && s.at > first && s.at <= last).length;
      // The backlog run's messages: its head and its BACKLOG parts.
      const backlogLeft = BACKLOG + 1 - starts.filter((s) => s.tag === 'b' && s.at <= first).length;
      phases.push({ name, firstStartMs: first - probeAt, slotMs, normalShare: normalDuring / (normalDuring + mine.length), backlogLeft });
      await waitForRun(engine.db, backlog.runId, { timeoutMs: 600_000 });
    }
  } finally {
    await orchestrator.close();
    await workers.close();
    await world.close();
  }
  console.log(`backlog ${BACKLOG} parts, second run ${PROBE} parts, ${SLOTS} slots, step ${STEP_MS} ms, reserved share ${SHARE}`);
  for (const p of phases) {
    console.log(
      `${p.name.padEnd(28)} first message started after ${p.firstStartMs.toFixed(0).padStart(6)} ms = ${(p.firstStartMs / p.slotMs).toFixed(2).padStart(7)} slot units` +
        ` (slot unit ${p.slotMs.toFixed(1)} ms; ${p.backlogLeft} backlog parts not yet started);` +
        ` normal share while it ran ${p.normalShare.toFixed(2)} (reserved ${SHARE})`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
