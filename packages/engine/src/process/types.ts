/** Shapes shared by the message-processing modules. */
import type { Frame } from '../exec/frames';

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
}

/** What happened to one delivered message. */
export type Outcome = { ok: true } | { ok: false; error: Error };
