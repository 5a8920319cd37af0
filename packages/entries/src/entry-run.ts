/**
 * The one door every bridge (MCP, A2A, the event mesh, inbound email) goes through to start a run
 * and read its answer, so each gets the same validation, findings, causes and answer shape as the
 * REST API. Bridges never write runs themselves.
 */
import { startRun } from '@trellis/engine/runs/start-run';
import { getRun } from '@trellis/engine/runs/get-run';
import { waitForRun, FINAL_STATUSES } from '@trellis/engine/runs/wait-run';
import { describeError, RunNotFoundError, type ErrorView } from '@trellis/engine/errors';
import type { Engine } from '@trellis/engine/engine';
import type { SignedInUser } from '@trellis/engine/users/verify-credentials';

/** Which bridge a run came in through (recorded with the run's start). */
export type EntryKind = 'mcp' | 'a2a' | 'event' | 'email';

/** A start request from a bridge. */
export interface EntryStart {
  /** The mesh by name (bridges address published meshes by name). */
  meshName: string;
  /** Exactly one of text, bytes or payload (engine kernel/input.ts). */
  input: { name?: string; text?: string; bytes?: Uint8Array; payload?: unknown };
  /** Same key, same run: a redelivered event or a retried call starts nothing new. */
  idempotencyKey?: string;
  entry: EntryKind;
  /** The token's owner, or null for the system (events and mail act under admin policy). */
  actor: SignedInUser | null;
}

/** A started (or found again) run. */
export interface EntryStarted {
  runId: string;
  status: string;
  /** True when the idempotency key named a run that already existed. */
  reused: boolean;
}

/** The answer every bridge gives: the run's status, and its output or cause once it has ended. */
export interface EntryAnswer {
  runId: string;
  status: string;
  /** True when the run has reached an end state (done, failed, stalled, cancelled). */
  ended: boolean;
  output?: unknown;
  cause?: string | null;
  causeMember?: string | null;
  causeMessage?: string | null;
}

/** The error shape every bridge answers with, as the REST API does: `{ error: { code, message, findings? } }`. */
export interface EntryErrorBody {
  error: { code: string; message: string; findings?: ErrorView['findings'] };
}

/**
 * Starts a run through the engine's start-run use case.
 * @throws MeshNotFoundError, MeshInvalidError (findings), InputRejectedError (the run is recorded
 *   failed with cause input_rejected), RedisUnreachableError (the run is saved and starts later).
 */
export async function startEntryRun(engine: Engine, req: EntryStart): Promise<EntryStarted> {
  const { runId } = await startRun(engine, { meshName: req.meshName, input: req.input, ...(req.actor ? { userId: req.actor.id } : {}) });
  return { runId, status: 'running', reused: false };
}

/**
 * The run's answer after waiting at most `waitMs` (0: at once) for it to end.
 * @throws RunNotFoundError.
 */
export async function entryAnswer(engine: Engine, runId: string, waitMs: number): Promise<EntryAnswer> {
  const view = waitMs > 0 ? await waitForRun(engine.db, runId, { timeoutMs: waitMs }) : await getRun(engine.db, runId);
  if (!view) throw new RunNotFoundError(runId);
  const ended = FINAL_STATUSES.includes(view.status);
  return {
    runId,
    status: view.status,
    ended,
    ...(ended && view.status === 'done' ? { output: view.output } : {}),
    ...(view.cause ? { cause: view.cause, causeMember: view.causeMember, causeMessage: view.causeMessage } : {}),
  };
}

/** Any thrown value as the shared error body (no internals). */
export function entryError(err: unknown): { status: number; body: EntryErrorBody } {
  const view = describeError(err);
  return { status: view.status, body: { error: { code: view.code, message: view.message, ...(view.findings ? { findings: view.findings } : {}) } } };
}
