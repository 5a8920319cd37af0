/**
 * The one door every bridge (MCP, A2A, the event mesh, inbound email) goes through: the engine's
 * shared entry use case (runs/start-entry-run.ts: validation, findings, causes, the `run.start`
 * audit entry, idempotency keys) and its answer (runs/wait-answer.ts), so each bridge answers as
 * the REST API does. Bridges never write runs themselves.
 */
import { startEntryRun, type EntryKind, type EntryRunAnswer } from '@trellis/engine/runs/start-entry-run';
import { waitForAnswer, type RunAnswer } from '@trellis/engine/runs/wait-answer';
import { actorOf, SYSTEM_ACTOR } from '@trellis/engine/audit/append';
import { describeError, type ErrorView } from '@trellis/engine/errors';
import type { Engine } from '@trellis/engine/engine';
import type { SignedInUser } from '@trellis/engine/users/verify-credentials';

/** A start request from a bridge. */
export interface EntryStart {
  /** The mesh by name (bridges address published meshes by name). */
  meshName: string;
  /** Exactly one of text, bytes or payload (engine kernel/input.ts). */
  input: { name?: string; text?: string; bytes?: Uint8Array; payload?: unknown };
  /** Same key, same run: a redelivered event or a retried call starts nothing new. Scoped by the bridge (`mcp:`, `a2a:`, `nats:`, `email:`). */
  idempotencyKey?: string;
  entry: Extract<EntryKind, 'mcp' | 'a2a' | 'event' | 'email'>;
  /** The token's owner, or null for the system (events and mail act under the admin's policy). */
  actor: SignedInUser | null;
  /** What carried it, for the audit entry (a subject, a recipient). */
  via?: string;
}

/** The answer every bridge gives: the shared run answer (status, cause, counts, output). */
export type EntryAnswer = RunAnswer;

/** The error shape every bridge answers with, as the REST API does: `{ error: { code, message, findings? } }`. */
export interface EntryErrorBody {
  error: { code: string; message: string; findings?: ErrorView['findings'] };
}

/**
 * Starts a run through the shared entry use case (or finds the run of an earlier request with the
 * same key: `reused`).
 * @throws as startEntryRun: BadInputError, MeshNotFoundError, MeshInvalidError (findings),
 *   InputRejectedError (the run is recorded failed, its id on the error), IdempotencyConflictError,
 *   RedisUnreachableError (the run is saved and starts later).
 */
export function startBridgeRun(engine: Engine, req: EntryStart): Promise<EntryRunAnswer> {
  return startEntryRun(engine, {
    mesh: { name: req.meshName },
    input: req.input,
    ...(req.idempotencyKey !== undefined ? { idempotencyKey: req.idempotencyKey } : {}),
    entry: req.entry,
    actor: req.actor ? actorOf(req.actor) : SYSTEM_ACTOR,
    ...(req.via ? { via: req.via } : {}),
  });
}

/**
 * The run's answer after waiting at most `waitMs` (0: at once) for it to end.
 * @throws RunNotFoundError.
 */
export function entryAnswer(engine: Engine, runId: string, waitMs: number): Promise<EntryAnswer> {
  return waitForAnswer(engine.db, runId, { timeoutMs: waitMs });
}

/** Any thrown value as the shared error body (no internals), with its HTTP status. */
export function entryError(err: unknown): { status: number; body: EntryErrorBody } {
  const view = describeError(err);
  return { status: view.status, body: { error: { code: view.code, message: view.message, ...(view.findings ? { findings: view.findings } : {}) } } };
}
