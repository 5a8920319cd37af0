/**
 * Peak resident memory of 12 code sandboxes started at once, for docs:
 * `node --import tsx scripts/measure-sandboxes.ts uncapped|capped`. `uncapped` lifts the caps (as
 * before they existed); `capped` keeps the defaults (TRELLIS_MAX_SANDBOXES, TRELLIS_SANDBOX_MEMORY_MB).
 * Each step fills about 80 MB of its 128 MB isolate and holds it for a second. Memory is the sum of
 * the sandbox processes' RSS, sampled every 20 ms from `ps`.
 */
import { execFileSync } from 'node:child_process';
import { CodeStepSchema } from '@trellis/mesh/schema';
import { runCodeStep } from '../src/members/workflow/steps/code-sandbox';
import { overrideLimits } from '../src/security/env';
import { sandboxUse } from '../src/security/sandbox-slots';

const mode = process.argv[2] === 'uncapped' ? 'uncapped' : 'capped';
if (mode === 'uncapped') overrideLimits({ maxSandboxes: 1000, sandboxMemoryMb: 1_000_000 });
const source = 'const keep = []; for (let i = 0; i < 80; i++) keep.push(new Float64Array(131072).fill(i)); const end = Date.now() + 1000; while (Date.now() < end); return { n: keep.length };';
const step = CodeStepSchema.parse({ type: 'code', source, memoryMb: 128, timeoutMs: 60_000 });

function childrenRssMb(): number {
  try {
    const out = execFileSync('ps', ['--ppid', String(process.pid), '-o', 'rss='], { encoding: 'utf8' });
    return out.split('\n').reduce((sum, l) => sum + (Number(l.trim()) || 0), 0) / 1024;
  } catch {
    return 0;
  }
}

let peakMb = 0;
let peakRunning = 0;
const watch = setInterval(() => {
  peakMb = Math.max(peakMb, childrenRssMb());
  peakRunning = Math.max(peakRunning, sandboxUse().running);
}, 20);
const started = Date.now();
const results = await Promise.all(Array.from({ length: 12 }, () => runCodeStep('code', step, {})));
clearInterval(watch);
process.stdout.write(
  `${JSON.stringify({ mode, sandboxes: results.length, allDone: results.every((r) => (r as { n: number }).n === 80), peakConcurrent: peakRunning, peakChildrenRssMb: Math.round(peakMb), seconds: (Date.now() - started) / 1000 })}\n`,
);
