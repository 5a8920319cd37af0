/**
 * What one built-in workflow step type declares: its lane and the function that runs it. Each step
 * type has its own file in this folder; steps/handlers.ts collects them in `STEPS`, keyed by type, so
 * a step type added to the mesh schema without a handler fails to compile.
 */
import type { Step } from '@trellis/mesh/schema';
import type { Db } from '@trellis/db/client';
import type { AgentRunner } from '../../../kernel/engine';
import type { Guard } from '../../../policy/guard';
import type { Item } from '../../../plan/frames';

/** The `type` of a workflow step, e.g. `split` or `sql`. */
export type StepType = Step['type'];

/** The step of one type, e.g. `StepOf<'sql'>` is `SqlStep`. */
export type StepOf<T extends StepType> = Extract<Step, { type: T }>;

/**
 * The delivery a heavy step runs in (process/lease.ts): the message id, a signal that aborts when
 * the lease is lost or the run ends, and `guard()` to call before each outside effect.
 */
export interface StepRun {
  messageId: string;
  /** The run and mesh of the delivery (agent budgets and the tool trail); absent in direct calls. */
  runId?: string;
  meshId?: string;
  /** The mesh version of the delivery's run (the warm code sandbox is keyed by it). */
  meshVersion?: number;
  signal: AbortSignal;
  /** @throws LeaseLostError or RunEndedError when this delivery must not act any more. */
  guard(): Promise<void>;
}

/** What heavy steps need from the engine. */
export interface StepContext {
  /** What steps may reach (secrets, named connections, egress, the sandbox), each under its policy; never the process environment. */
  policy: Guard;
  /** Trellis's own database (Postgres or PGlite): what a SQL step with connection `trellis` runs on. */
  db: Db;
  runAgent: AgentRunner;
  /** Longest an agent step may take, in ms. */
  agentTimeoutMs: number;
  /** The delivery, when the step runs for one (absent in direct calls, e.g. tests). */
  run?: StepRun | undefined;
}

/**
 * A step that runs in microseconds, inside the commit transaction: a pure function of one item.
 * `splits` marks a step that pushes a split frame (its split key is then no longer the message id).
 */
export interface InlineStep<T extends StepType> {
  lane: 'inline';
  splits?: true;
  /** @throws StepError with the step's cause. */
  apply(this: void, memberId: string, step: StepOf<T>, item: Item, key: string): Item[];
}

/**
 * A step with an outside effect (a process, a connection, a model call), run on a worker pool before
 * the commit transaction: maps one non-void item's payload to a new payload; `key` is the effect's
 * idempotency key. A void item passes through without running it.
 */
export interface EffectStep<T extends StepType> {
  lane: 'effect';
  splits?: undefined;
  /** @throws StepError with the step's cause, or PolicyRefusedError. */
  run(this: void, memberId: string, step: StepOf<T>, payload: unknown, ctx: StepContext, key: string): Promise<unknown>;
}

/**
 * A split whose parsing is asynchronous, run on a worker pool: one item in, its parts out, each with
 * the split frame keyed `key`; a void item passes with its own empty frame.
 */
export interface UnpackStep<T extends StepType> {
  lane: 'unpack';
  splits: true;
  /** @throws StepError with the step's cause. */
  unpack(this: void, memberId: string, step: StepOf<T>, item: Item, key: string): Promise<Item[]>;
}

/** The handler of one step type. */
export type StepHandler<T extends StepType = StepType> = InlineStep<T> | EffectStep<T> | UnpackStep<T>;

/** One handler per step type. */
export type StepHandlers = { [T in StepType]: StepHandler<T> };
