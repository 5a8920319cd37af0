// The code step's one-shot sandbox process (started by src/members/workflow/steps/code-sandbox.ts,
// never imported): runs one message in a fresh isolate (isolate-run.mjs) and exits.
//
// Runs one piece of JavaScript in an isolated-vm isolate: a separate V8 heap with no Node APIs at
// all (no process, require, import, fs, net, timers), a heap limit and a time limit. This process
// itself is started with an empty environment and Node's permission model (reads limited to this
// folder's runner files and isolated-vm, no writes unless granted, no child processes, no workers),
// so even an escape from the isolate finds nothing to read and cannot write or spawn.
//
// stdin: one JSON object, isolate-run.mjs's input plus { ivmPath }
// stdout: one JSON line, isolate-run.mjs's answer
import { createRequire } from 'node:module';
import { runInIsolate } from './isolate-run.mjs';

const require = createRequire(import.meta.url);

async function readInput() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const input = await readInput();
const result = await runInIsolate(require(input.ivmPath), input);
process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(0));
