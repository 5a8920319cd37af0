/**
 * Use case: run a mesh file as it is on disk or in a request (the CLI's `run`, the coming
 * webhooks): parse and save it (a new version only when it changed) → validate it once, nested
 * meshes resolved against the saved ones → start the run.
 */
import type { Finding } from '@trellis/mesh/findings';
import { hasErrors } from '@trellis/mesh/findings';
import type { Mesh } from '@trellis/mesh/schema';
import { validateMesh } from '@trellis/mesh/validate';
import type { Engine } from '../kernel/engine';
import type { RunInput } from '../kernel/input';
import { saveMesh } from '../meshes/save-mesh';
import { loadVersion, nestedResolver } from '../plan/definition';
import { knownTools } from '../tools/known-tools';
import { startChecked } from './start-run';

/** The saved version a run of a mesh file uses. */
export interface SavedMeshFile {
  meshId: string;
  name: string;
  version: number;
  mesh: Mesh;
}

/** What to run. */
export interface RunMeshFileInput {
  /** The mesh file: a JSON string or the parsed object. */
  definition: unknown;
  input: RunInput;
  userId?: string;
  /** Once saved, before validating: e.g. the CLI imports the nested mesh files it finds beside it. */
  onSaved?: (saved: SavedMeshFile) => Promise<void>;
  /** Once valid, right before the run starts: e.g. the CLI starts a worker in its own process. */
  beforeStart?: (saved: SavedMeshFile) => Promise<void>;
}

/** Started, or refused before any run existed: unreadable or conflicting (`save`) or invalid (`validate`). */
export type RunMeshFileResult =
  | { ok: true; runId: string; messageId: string; status: 'running' | 'queued'; saved: SavedMeshFile }
  | { ok: false; stage: 'save'; message: string; findings: Finding[] }
  | { ok: false; stage: 'validate'; saved: SavedMeshFile; findings: Finding[] };

/**
 * Saves, validates and starts; a refused file starts nothing.
 * @throws InputRejectedError (a failed run is recorded, see runs/start-run.ts), RedisUnreachableError.
 */
export async function runMeshFile(engine: Engine, input: RunMeshFileInput): Promise<RunMeshFileResult> {
  const result = await saveMesh(engine.db, { definition: input.definition });
  if (!result.ok) return { ok: false, stage: 'save', message: result.message, findings: result.findings };
  const mesh = await loadVersion(engine.db, result.meshId, result.version);
  if (!mesh) throw new Error(`mesh ${result.name} version ${result.version} was saved but cannot be read back`);
  const saved: SavedMeshFile = { meshId: result.meshId, name: result.name, version: result.version, mesh };
  await input.onSaved?.(saved);
  // Validated here, once: a mesh with findings (no head, a loop, …) is refused with them, not a compile error.
  const findings = validateMesh(mesh, await nestedResolver(engine.db, mesh), await knownTools(engine.db, mesh));
  if (hasErrors(findings)) return { ok: false, stage: 'validate', saved, findings };
  await input.beforeStart?.(saved);
  const started = await startChecked(engine, { meshId: saved.meshId, meshName: saved.name, version: saved.version }, { input: input.input, ...(input.userId ? { userId: input.userId } : {}) });
  return { ok: true, ...started, saved };
}
