/**
 * Use case: start a run from an entry point (REST, a signed webhook, a schedule, MCP, A2A, an
 * event-mesh subject, inbound email, the web upload, the CLI). Every entry point calls this, so
 * each gets the same input validation, findings and causes as `startRun` (it is `startRun`), the
 * same audit entry (`run.start`, in the run's own transaction), the same idempotency rule and the
 * same answer shape.
 */
import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { meshes } from '@trellis/db/schema/meshes';
import { runEntries } from '@trellis/db/schema/run-entries';
import { runs } from '@trellis/db/schema/runs';
import type { RunStatus } from '@trellis/db/schema/statuses';
import { appendAudit, recordAudit, type AuditActor } from '../audit/append';
import type { Engine } from '../kernel/engine';
import { BadInputError, EngineError, MeshNotFoundError } from '../kernel/errors';
import { meshIdNotFound } from '../meshes/mesh-id-not-found';
import type { RunInput } from '../kernel/input';
import { startRun, type StartTx } from './start-run';

/** The entry points a run can be asked for from. */
export const ENTRY_KINDS = ['rest', 'webhook', 'schedule', 'mcp', 'a2a', 'event', 'email', 'upload', 'cli'] as const;
/** One of {@link ENTRY_KINDS}. */
export type EntryKind = (typeof ENTRY_KINDS)[number];

/** Longest idempotency key, in characters. */
export const MAX_IDEMPOTENCY_KEY = 255;

/** A request to start a run. */
export interface EntryRunRequest {
  /** The mesh by id or name; `version` defaults to the latest saved one. */
  mesh: { id: string; version?: number } | { name: string; version?: number };
  /** Exactly one of bytes, text or a JSON object (`payload`); `name` labels it for people. */
  input: RunInput;
  /**
   * Same key, same run: a second request with the key answers with the first run (`reused: true`)
   * instead of starting another. Keys are global: an entry point scopes its own (REST uses
   * `rest:<user id>:<header>`, schedules `schedule:<id>:<tick time>`). 1–255 characters.
   */
  idempotencyKey?: string;
  entry: EntryKind;
  /** Who asked: a user (person or service account), or the system for schedules. */
  actor: AuditActor;
  /** What carried the request, for the audit entry (a webhook id, a schedule id, a subject). */
  via?: string;
  /** Rows the entry point commits with a new run, in its transaction (e.g. a webhook's callback). */
  commitWith?(tx: StartTx, runId: string): Promise<void>;
}

/** The one answer shape of every entry point. */
export interface EntryRunAnswer {
  runId: string;
  status: RunStatus;
  /** True when the idempotency key named a run started before; nothing new was started. */
  reused: boolean;
}

/** An idempotency key already used for a different request (HTTP 409). */
export class IdempotencyConflictError extends EngineError {
  static override readonly httpStatus = 409;
  constructor(readonly runId: string) {
    super('idempotency_key_reused', `the idempotency key was already used for a different request (run ${runId}); use a new key for a new request`);
  }
}

/** Thrown inside the start transaction when another request holds the key; rolls the run back. */
class KeyTaken extends Error {}

/** SHA-256 (hex) of what the request asks for: the mesh, the requested version and the input. */
export function requestFingerprint(meshId: string, version: number | undefined, input: RunInput): string {
  const h = createHash('sha256');
  h.update(JSON.stringify({ meshId, version: version ?? null, name: input.name ?? null }));
  if (input.bytes !== undefined) h.update('\u0000bytes\u0000').update(input.bytes);
  if (input.text !== undefined) h.update('\u0000text\u0000').update(input.text);
  if (input.payload !== undefined) h.update('\u0000payload\u0000').update(JSON.stringify(input.payload) ?? 'undefined');
  return h.digest('hex');
}

async function existing(engine: Engine, key: string, fingerprint: string): Promise<EntryRunAnswer | undefined> {
  const [row] = await engine.db
    .select({ runId: runEntries.runId, fingerprint: runEntries.fingerprint, status: runs.status })
    .from(runEntries)
    .innerJoin(runs, eq(runs.id, runEntries.runId))
    .where(eq(runEntries.idempotencyKey, key))
    .limit(1);
  if (!row) return undefined;
  if (row.fingerprint !== fingerprint) throw new IdempotencyConflictError(row.runId);
  return { runId: row.runId, status: row.status, reused: true };
}

/**
 * Starts the run, or answers with the run an earlier request with the same idempotency key
 * started. The run row, its `run_entries` row (entry point, actor, key) and the `run.start` audit
 * entry commit together; a refused input leaves its failed run (cause `input_rejected`) and a
 * `run.refused` audit entry, as `startRun` does, and is not bound to the key.
 * @throws BadInputError (a key that is empty or too long), MeshNotFoundError, MeshInvalidError
 *   (findings), InputRejectedError (with the failed run's id), IdempotencyConflictError (409),
 *   RedisUnreachableError (the run is saved and starts when Redis is back).
 */
export async function startEntryRun(engine: Engine, req: EntryRunRequest): Promise<EntryRunAnswer> {
  const key = req.idempotencyKey;
  if (key !== undefined && (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY)) {
    throw new BadInputError(`idempotencyKey: expected 1-${MAX_IDEMPOTENCY_KEY} characters, got ${key.length}`);
  }
  const where = 'id' in req.mesh ? eq(meshes.id, req.mesh.id) : eq(meshes.name, req.mesh.name);
  const [mesh] = await engine.db.select({ id: meshes.id, name: meshes.name }).from(meshes).where(where).limit(1);
  if (!mesh) throw 'id' in req.mesh ? await meshIdNotFound(engine.db, req.mesh.id) : new MeshNotFoundError(req.mesh.name);
  const version = req.mesh.version;
  const fingerprint = requestFingerprint(mesh.id, version, req.input);
  if (key !== undefined) {
    const found = await existing(engine, key, fingerprint);
    if (found) return found;
  }
  const detail = { entry: req.entry, mesh: mesh.name, meshId: mesh.id, meshName: mesh.name, ...(version !== undefined ? { version } : {}), ...(req.via ? { via: req.via } : {}) };
  try {
    const { runId, status } = await startRun(
      engine,
      { meshId: mesh.id, ...(version !== undefined ? { version } : {}), input: req.input, ...(req.actor.id ? { userId: req.actor.id } : {}) },
      {
        auditsStart: true,
        async inTransaction(tx, runId) {
          const taken = await tx
            .insert(runEntries)
            .values({ runId, entry: req.entry, idempotencyKey: key ?? null, fingerprint, actorId: req.actor.id })
            .onConflictDoNothing()
            .returning({ runId: runEntries.runId });
          if (taken.length === 0) throw new KeyTaken();
          await appendAudit(tx, { actor: req.actor, action: 'run.start', target: runId, detail: { ...detail, ...(key !== undefined ? { idempotencyKey: key } : {}) } });
          await req.commitWith?.(tx, runId);
        },
        async onRejected(runId, err) {
          await recordAudit(engine.db, { actor: req.actor, action: 'run.refused', target: runId, detail: { ...detail, cause: err.cause, reason: err.reason } });
        },
      },
    );
    return { runId, status, reused: false };
  } catch (err) {
    // Another request with the key committed first: answer with its run.
    if (err instanceof KeyTaken && key !== undefined) {
      const found = await existing(engine, key, fingerprint);
      if (found) return found;
    }
    throw err;
  }
}
