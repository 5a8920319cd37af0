// The code step's warm sandbox process (started by src/members/workflow/steps/code-pool.ts, never
// imported): long-lived, it serves many messages of one mesh version and author, each in a fresh
// isolate made for it and disposed of after it (isolate-run.mjs), several at once. Started like the
// one-shot process (code-runner.mjs): empty environment, Node's permission model, no writes, no
// child processes or workers, an unprivileged user.
//
// argv[2]: the path of isolated-vm.
// stdin: JSON lines, { id, input } (isolate-run.mjs's input; never a writeDir: steps with a scratch
//   directory get a one-shot process, whose permission flags grant exactly that directory).
// stdout: JSON lines, { id, result } with isolate-run.mjs's answer, in the order messages finish.
// The process ends when its stdin closes (the engine retired it, or the engine itself is gone).
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { runInIsolate } from './isolate-run.mjs';

const require = createRequire(import.meta.url);
const ivm = require(process.argv[2]);
/** Largest answer written back, in bytes (the engine's read limit). */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  if (line.trim() === '') return;
  const { id, input } = JSON.parse(line);
  void runInIsolate(ivm, { ...input, writeDir: undefined }).then((result) => {
    let out = JSON.stringify({ id, result });
    if (out.length > MAX_OUTPUT_BYTES) out = JSON.stringify({ id, result: { ok: false, kind: 'threw', message: `returned more than ${MAX_OUTPUT_BYTES} bytes` } });
    process.stdout.write(out + '\n');
  });
});
lines.on('close', () => process.exit(0));
