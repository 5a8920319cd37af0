/**
 * `trellis run <mesh.json> --input <file> [--output <file>] [--json] [--timeout <s>]`
 * Imports the mesh (a new version only when it changed), starts the run, works it off in this
 * process when no worker is connected, waits, and prints the summary.
 * Exit 0 done, 1 failed/stalled/timed out/refused input, 2 bad arguments (an unreadable or invalid
 * mesh file, printed with its findings; no run is created) or unreachable Redis/database.
 */
import { writeFile } from 'node:fs/promises';
import type { Finding } from '@trellis/mesh/findings';
import { parseMeshFile } from '@trellis/mesh/parse';
import { InputRejectedError, MeshInvalidError } from '@trellis/engine/errors';
import type { Engine } from '@trellis/engine/engine';
import { getRun, type RunView } from '@trellis/engine/runs/get-run';
import { runMeshFile, type RunMeshFileInput } from '@trellis/engine/runs/run-mesh-file';
import { waitForRun } from '@trellis/engine/runs/wait-run';
import { open, settings } from '../boot';
import { CliError, EXIT } from '../fail';
import { readBytes, readText } from '../files';
import { exitFor, timeoutSeconds, workLocallyUnlessServed } from '../local-run';
import { importNestedFiles } from '../nested-files';
import { printSummary, summaryJson } from '../summary';
import { printFindings } from './validate';

/** Options of `run`. */
export interface RunOptions {
  input: string;
  output?: string;
  json?: boolean;
  timeout?: string;
}

/** Runs a mesh on one input file and waits for the result. */
export async function runCommand(meshFile: string, opts: RunOptions): Promise<number> {
  const waitSeconds = timeoutSeconds(opts.timeout);
  const env = settings();
  const definition = await readText(meshFile, 'mesh file');
  const bytes = await readBytes(opts.input, 'input file');
  // A file that is not a mesh file is refused before the database is opened.
  const parsed = parseMeshFile(definition);
  if (!parsed.ok) refuseMesh(meshFile, opts.json, `${meshFile} is not a readable trellis.mesh/v1 file, so the run did not start`, parsed.findings);
  const booted = await open(env);
  let local: { close(): Promise<void> } | undefined;
  try {
    const { engine } = booted;
    const view = await start(engine, meshFile, opts, waitSeconds, {
      definition,
      input: { name: opts.input, bytes },
      onSaved: async (saved) => {
        for (const file of await importNestedFiles(engine.db, meshFile, saved.mesh)) process.stderr.write(`trellis: imported nested mesh ${file}\n`);
      },
      beforeStart: async (saved) => {
        local = await workLocallyUnlessServed(engine, env, saved.meshId, saved.version);
      },
    });
    // The summary first, so the run id is shown even when the output file cannot be written.
    if (opts.json) process.stdout.write(`${JSON.stringify(summaryJson(view))}\n`);
    else printSummary(view);
    if (opts.output && view.status === 'done') await writeOutput(opts.output, view.output);
    return exitFor(view, opts.json, waitSeconds);
  } finally {
    await local?.close();
    await booted.close();
  }
}

/** Runs the file (runs/run-mesh-file.ts) and waits; a refused file or input is reported as the CLI reports it. */
async function start(engine: Engine, meshFile: string, opts: RunOptions, timeoutSeconds: number, input: RunMeshFileInput): Promise<RunView> {
  try {
    const started = await runMeshFile(engine, input);
    if (!started.ok && started.stage === 'save') refuseMesh(meshFile, opts.json, started.message, started.findings);
    if (!started.ok) refuseMesh(meshFile, opts.json, `${meshFile} is not valid, so the run did not start`, started.findings);
    return await waitForRun(engine.db, started.runId, { timeoutMs: timeoutSeconds * 1000 });
  } catch (err) {
    if (err instanceof InputRejectedError && err.runId) {
      const view = await getRun(engine.db, err.runId);
      if (view) return view;
    }
    if (err instanceof MeshInvalidError) refuseMesh(meshFile, opts.json, err.message, err.findings);
    throw err;
  }
}

/**
 * Refuses a mesh file that cannot run: its findings on stdout (one per line, or with `--json` one
 * object `{ runId: null, status: "refused", error: { code: "mesh_invalid", message }, findings }`),
 * and a bad-argument exit, since no run was created (DESIGN.md §6).
 * @throws CliError always, with exit code 2.
 */
function refuseMesh(meshFile: string, json: boolean | undefined, message: string, findings: readonly Finding[]): never {
  if (json) process.stdout.write(`${JSON.stringify({ runId: null, status: 'refused', error: { code: 'mesh_invalid', message }, findings })}\n`);
  else printFindings(meshFile, false, findings);
  throw new CliError(message, EXIT.usage, json === true);
}

/** Writes the leaf payload's `text` exactly as UTF-8 bytes, or the output as JSON when it has no text. */
async function writeOutput(file: string, output: unknown): Promise<void> {
  const text = (output as { text?: unknown } | null)?.text;
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(`${JSON.stringify(output, null, 2)}\n`, 'utf8');
  try {
    await writeFile(file, bytes);
  } catch (err) {
    throw new CliError(`cannot write output file ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
