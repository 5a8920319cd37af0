/** Shapes shared by the message-processing modules. */
import { z } from 'zod';
import type { Frame } from '../plan/frames';

/** A message a worker has claimed (status `running`), with the mesh version of its run. */
export interface Claimed {
  id: string;
  runId: string;
  member: string;
  pool: string;
  seq: number;
  depth: number;
  frames: Frame[];
  void: boolean;
  payload: unknown;
  attempts: number;
  meshId: string;
  meshVersion: number;
}

/**
 * A claimed message as `update … returning` gives it (process/claim.ts `RETURNING`), frames still
 * unparsed (`parseFrames`).
 */
export const ClaimedRow = z.object({
  id: z.string(),
  runId: z.string(),
  member: z.string(),
  pool: z.string(),
  seq: z.number(),
  depth: z.number(),
  frames: z.unknown(),
  void: z.boolean(),
  payload: z.unknown(),
  attempts: z.number(),
  meshId: z.string(),
  meshVersion: z.number(),
});

/** A child message about to be written. */
export interface ChildRow {
  id: string;
  run_id: string;
  member: string;
  pool: string;
  channel: string;
  seq: number;
  parent_id: string;
  depth: number;
  frames: Frame[];
  void: boolean;
  payload: unknown;
  /** Set on a child the committing worker keeps inline (process/inline-lane.ts): its row's lease owner… */
  lease_owner?: string;
  /** …and the lease's length, ms. */
  lease_ms?: number;
}

/**
 * What happened to one delivered message: `ack` (finished, or nothing left to do: acknowledge the
 * job), `failed` (retry or dead-letter it; a heavy message names the lease token its step ran
 * under, so a stale delivery cannot release another's lease), or `wait` (another delivery holds a
 * live lease on it: look again at `until`, epoch ms), or `drained` (this worker is stopping and hands
 * the message back untouched, its lease released: deliver it again at once, counting no attempt).
 */
export type Outcome =
  | { kind: 'ack' }
  | { kind: 'failed'; error: Error; leaseToken?: string | undefined }
  | { kind: 'wait'; until: number }
  | { kind: 'drained' };

/** The outcome of a message handed back by a draining worker. */
export const DRAINED: Outcome = Object.freeze({ kind: 'drained' });

/** The outcome of a message that needs nothing more. */
export const ACK: Outcome = Object.freeze({ kind: 'ack' });
