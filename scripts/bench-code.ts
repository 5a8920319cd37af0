/**
 * `npm run bench:code [-- --words 20000 --cold-words 2000 --direct 2000]`: words through word-split
 * with a one-line code step on every word (one branch per word, joined back in order, Postgres, an
 * in-process worker at concurrency 200): `--cold-words` of them through one-shot sandbox processes
 * (one per message, the warm pool turned off; fewer by default, as a process start per message
 * makes 20,000 take many minutes and the rate does not depend on the count), then `--words`
 * through warm sandbox processes (code-pool.ts), each on its own database and queue
 * prefix; and the same code step called directly (no queue, no database) `--direct` times, cold and
 * warm, at the sandbox cap's concurrency. Prints messages/s of each, the warm processes each
 * started, and the warm/one-shot ratio.
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { CodeStepSchema } from '@trellis/mesh/schema';
import { openWorld, saveOrThrow, WORD_SPLIT } from '../packages/engine/test/harness';
import { closeWarmPool, configureWarmPool, warmPoolCounters } from '../packages/engine/src/members/workflow/steps/code-pool';
import { runCodeStep } from '../packages/engine/src/members/workflow/steps/code-sandbox';
import { startInProcess } from '../packages/engine/src/runtime/in-process';
import { startRun } from '../packages/engine/src/runs/start-run';
import { waitForRun } from '../packages/engine/src/runs/wait-run';
import { limits } from '../packages/engine/src/security/env';

const SOURCE = 'return { text: payload.text.toUpperCase() };';

/** word-split with a workflow member running SOURCE between the word split and the word join. */
function meshWithCode(): unknown {
  const base = JSON.parse(WORD_SPLIT) as { name: string; members: { id: string }[]; channels: { from: string; to: string }[]; layout: Record<string, unknown> };
  return {
    ...base,
    name: 'word-split-code',
    members: [...base.members, { id: 'upper', kind: 'workflow', label: 'Upper-case', steps: [{ type: 'code', source: SOURCE }] }],
    channels: [...base.channels.filter((c) => c.from !== 'words'), { from: 'words', to: 'upper' }, { from: 'upper', to: 'join-words' }],
    layout: { ...base.layout, upper: { x: 200, y: 300 } },
  };
}

const document = (n: number) => Array.from({ length: n }, (_, i) => `w${i.toString(36)}`).join(' ');

interface Figure {
  scenario: string;
  messages: number;
  seconds: number;
  exact: boolean;
  /** Warm processes started during the scenario. */
  processes: number;
}

const spawned = () => warmPoolCounters().spawned;

async function throughEngine(words: number, warm: boolean): Promise<Figure> {
  configureWarmPool(warm ? {} : { maxTotal: 0 });
  const before = spawned();
  const world = await openWorld('postgres', { batchesInFlight: 2 });
  const runtime = startInProcess(world.engine, { pools: ['default'], concurrency: 200 });
  try {
    const meshId = await saveOrThrow(world, meshWithCode());
    const text = document(words);
    const started = performance.now();
    const { runId } = await startRun(world.engine, { meshId, input: { text } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 60 * 60_000, pollMs: 50 });
    const seconds = (performance.now() - started) / 1000;
    const exact = view.status === 'done' && (view.output as { text?: string }).text === text.toUpperCase();
    return { scenario: `engine, ${warm ? 'warm' : 'one-shot'}`, messages: words, seconds, exact, processes: spawned() - before };
  } finally {
    await runtime.close();
    await world.close();
    closeWarmPool();
  }
}

async function direct(n: number, warm: boolean): Promise<Figure> {
  const step = CodeStepSchema.parse({ type: 'code', source: SOURCE });
  const owner = warm ? { meshId: 'bench', version: 1, author: 'bench' } : undefined;
  const before = spawned();
  let next = 0;
  let exact = true;
  const started = performance.now();
  const lane = async () => {
    for (let i = next++; i < n; i = next++) {
      const out = (await runCodeStep('code', step, { text: `w${i}` }, undefined, {}, undefined, owner)) as { text: string };
      exact &&= out.text === `W${i}`;
    }
  };
  await Promise.all(Array.from({ length: limits().maxSandboxes }, lane));
  const seconds = (performance.now() - started) / 1000;
  closeWarmPool();
  return { scenario: `direct, ${warm ? 'warm' : 'one-shot'}`, messages: n, seconds, exact, processes: spawned() - before };
}

const { values } = parseArgs({
  options: { words: { type: 'string', default: '20000' }, 'cold-words': { type: 'string', default: '2000' }, direct: { type: 'string', default: '2000' } },
});
const count = (name: 'words' | 'cold-words' | 'direct') => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name}: expected a whole number, got ${values[name]}`);
  return n;
};
const words = count('words');
const coldWords = Math.min(count('cold-words'), words);
const calls = count('direct');

const figures: Figure[] = [];
const scenarios: [string, number, () => Promise<Figure>][] = [
  ['direct one-shot', calls, () => direct(calls, false)],
  ['direct warm', calls, () => direct(calls, true)],
  ['engine one-shot', coldWords, () => throughEngine(coldWords, false)],
  ['engine warm', words, () => throughEngine(words, true)],
];
for (const [name, n, run] of scenarios) {
  if (n === 0) continue;
  process.stderr.write(`running ${name} (${n} messages)…\n`);
  const f = await run();
  process.stderr.write(`  ${f.seconds.toFixed(1)} s\n`);
  figures.push(f);
}
const rate = (f: Figure) => f.messages / f.seconds;
const ratio = (kind: string) => {
  const cold = figures.find((f) => f.scenario === `${kind}, one-shot`);
  const hot = figures.find((f) => f.scenario === `${kind}, warm`);
  return cold && hot ? `${kind}: warm/one-shot throughput ${(rate(hot) / rate(cold)).toFixed(1)}x` : '';
};
process.stdout.write(
  [
    `machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; sandbox cap ${limits().maxSandboxes}`,
    `code step: ${SOURCE}`,
    '| scenario | exact | messages | seconds | messages/s | warm processes started |',
    '|---|---|---|---|---|---|',
    ...figures.map((f) => `| ${f.scenario} | ${f.exact ? 'yes' : 'NO'} | ${f.messages} | ${f.seconds.toFixed(2)} | ${rate(f).toFixed(1)} | ${f.processes} |`),
    '',
    ratio('direct'),
    ratio('engine'),
  ]
    .filter(Boolean)
    .join('\n') + '\n',
);
process.exit(figures.every((f) => f.exact) ? 0 : 1);
