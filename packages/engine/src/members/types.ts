/**
 * What a member kind declares to the engine: its lane and its hooks. `process/` routes every
 * message by its member's lane and calls these hooks; it never names a kind (members/index.ts
 * collects the handlers in `KINDS`).
 */
import type { Db } from '@trellis/db/client';
import type { Cause } from '@trellis/mesh/causes';
import type { Member, MemberKind } from '@trellis/mesh/schema';
import type { Engine } from '../kernel/engine';
import type { StepError } from '../kernel/errors';
import type { Queryable } from '../kernel/sql';
import type { Frame, Item } from '../plan/frames';

/**
 * How a member's messages move through a worker (process/batch.ts):
 * - `inline`: runs in microseconds inside the commit transaction that also claims it;
 * - `heavy`: claimed `running` under a lease, runs before its commit (process/claim.ts);
 * - `park`: recorded `parked` and acknowledged at once; continues later (process/park.ts);
 * - `join`: counted towards its join inside the commit transaction (process/join.ts).
 */
export type Lane = 'inline' | 'heavy' | 'park' | 'join';

/** The member type of one kind, e.g. `MemberOf<'agent'>` is `AgentMember`. */
export type MemberOf<K extends MemberKind> = Extract<Member, { kind: K }>;

/** What a member receives. */
export interface Incoming {
  id: string;
  payload: unknown;
  frames: Frame[];
  void: boolean;
}

/**
 * The delivery a heavy member runs in (process/lease.ts): the engine, the message id, a signal that
 * aborts when the lease is lost or the run ends, and `guard()` to call before each outside effect.
 */
export interface HeavyRun {
  engine: Engine;
  messageId: string;
  /** The delivery's run and mesh (agent budgets and the tool trail). */
  runId?: string;
  meshId?: string;
  /** The mesh version of the delivery's run. */
  meshVersion?: number;
  signal: AbortSignal;
  /** @throws LeaseLostError or RunEndedError when this delivery must not act any more. */
  guard(): Promise<void>;
}

/** The transaction the park lane opens on the engine's database. */
export type ParkTx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** A message the park lane has just marked `parked`, with the check its kind made before the transaction. */
export interface ParkedMessage<K extends MemberKind> {
  msg: Incoming & { runId: string; createdBy: string | null };
  member: MemberOf<K>;
  /** What {@link ParkHooks.check} answered for this message's run and member (undefined without a check). */
  checked: unknown;
}

/** A pre-transaction check's answer: a refusal fails the message like a throwing step. */
export type ParkCheck = { ok: true; data?: unknown } | { ok: false; error: StepError };

/** Hooks of a member kind whose lane is `park`. */
export interface ParkHooks<K extends MemberKind> {
  /**
   * Before the park transaction, once per run and member: checks that read the database (the
   * embedded database allows no query beside an open transaction).
   */
  check?(this: void, engine: Engine, runId: string, member: MemberOf<K>): Promise<ParkCheck>;
  /**
   * Inside the park transaction: records what the parked messages wait for.
   * @returns what to do after commit (add jobs, wake listeners); it must not throw for a best-effort step.
   */
  park(this: void, tx: ParkTx, engine: Engine, parked: readonly ParkedMessage<K>[]): Promise<() => Promise<void>>;
}

/**
 * What run-end hooks and sweeps may do to other runs, given by process/run-end.ts (so that members
 * never import the layer that calls them).
 */
export interface RunEndActions {
  /** Fails a run in `db` (process/run-end.ts `failRun`). @returns whether it ended it. */
  failRun(this: void, db: Queryable, runId: string, failure: RunFailure): Promise<boolean>;
  /** Continues a parked message with an answer (process/continue.ts), in a transaction of its own. */
  resumeParked(this: void, engine: Engine, runId: string, messageId: string, answer: unknown): Promise<void>;
}

/** What a run-end hook is told: the runs that just ended (any final status), and where. */
export interface RunEnd extends RunEndActions {
  /** Where the runs ended: the engine's database or the transaction that ended them. */
  db: Queryable;
  /**
   * The engine, when the runs ended outside a transaction (process/run-end.ts `finalizeRuns`):
   * only then may a hook continue other runs, each in a transaction of its own.
   */
  engine?: Engine | undefined;
  runIds: readonly string[];
}

/** What a kind's periodic sweep (the orchestrator, process/sweep-parked.ts) is given. */
export interface SweepContext extends RunEndActions {
  engine: Engine;
  /**
   * Sets a message aside as `dead` and fails its run (process/dead-letter.ts).
   * @returns false when the message had already finished.
   */
  deadLetter(this: void, engine: Engine, messageId: string, err: Error, cause?: Cause): Promise<boolean>;
}

/** Why a run failed: a cause from the cause list, where, and a sentence of detail. */
export interface RunFailure {
  cause: Cause;
  member?: string | undefined;
  memberLabel?: string | undefined;
  /** The type of the workflow step that failed, when a step did (e.g. `sql`). */
  step?: string | undefined;
  detail: string;
}

/**
 * One member kind's behaviour. Method syntax on purpose: `KINDS` is read through
 * {@link KindHandler}<MemberKind> once a member's kind has picked its handler (members/index.ts).
 */
export interface KindHandler<K extends MemberKind> {
  /** The lane of this member's messages (a workflow's depends on its steps). */
  lane(this: void, member: MemberOf<K>): Lane;
  /**
   * Runs the member on one message in place: the inline lane, and a void message on any lane.
   * @throws StepError with the member's cause.
   */
  execute(this: void, member: MemberOf<K>, msg: Incoming): Item[];
  /**
   * Runs the member on one claimed message of the heavy lane, before its commit; absent: `execute`.
   * @throws StepError with the member's cause; the lease's abort reason when the delivery was stopped.
   */
  executeHeavy?(this: void, run: HeavyRun, member: MemberOf<K>, msg: Incoming): Promise<Item[]>;
  /** The park lane's hooks (required when `lane` may answer `park`). */
  park?: ParkHooks<K>;
  /** The payload a parked message continues with, given the answer it waited for; absent: the answer. */
  resume?(this: void, member: MemberOf<K>, parked: unknown, answer: unknown): unknown;
  /** Called whenever runs end (process/run-end.ts), in the order of `KINDS`. */
  onRunEnded?(this: void, end: RunEnd): Promise<void>;
  /** One pass of the orchestrator's sweep over this kind's parked messages (expired jobs, ended children). */
  sweep?(this: void, ctx: SweepContext): Promise<void>;
}

/** One handler per member kind: a kind without one, or a handler for another kind, does not compile. */
export type KindHandlers = { [K in MemberKind]: KindHandler<K> };
