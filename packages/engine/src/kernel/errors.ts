/**
 * Typed engine errors. Every error a person may see carries a stable `code` and, declared on its class
 * beside the code, the HTTP status it answers with (`static httpStatus`); failures of a run also carry
 * a `cause` from the fixed cause list (DESIGN.md §4). `describeError` is the one formatter the API, the
 * web app and the CLI use to turn them into a status and a sentence, never a stack trace.
 */
import { isCertificateRefusal } from '@trellis/db/tls';
import type { Cause } from '@trellis/mesh/causes';
import type { Finding } from '@trellis/mesh/findings';

/**
 * The HTTP statuses engine errors answer with: 400 bad input, 401 a wrong key or no session, 403 refused
 * by the role policy, 404 missing, 409 a conflict with the current state, 413 over a size cap, 429 too many attempts, 500 a
 * step that failed, 503 a service is down, 504 a wait ran out.
 */
export const HTTP_STATUSES = [400, 401, 403, 404, 409, 413, 429, 500, 503, 504] as const;
/** One of {@link HTTP_STATUSES}. */
export type HttpStatus = (typeof HTTP_STATUSES)[number];

const ENGINE_ERROR = Symbol.for('trellis.engine-error');

/**
 * Base class: `code` is stable and machine-readable, `message` is a sentence for a person. Each
 * subclass declares `static readonly httpStatus` beside its code (errors.test.ts checks that every
 * one in the engine does), so a new error cannot fall through to a 500 unnoticed.
 */
export abstract class EngineError extends Error {
  /**
   * Brand every copy of this class shares (a registered symbol): the web server loads the engine
   * more than once (its startup hook and its routes are separate bundles), so an error thrown by
   * one copy fails `instanceof` of another. Test with {@link isEngineError}.
   */
  readonly [ENGINE_ERROR] = true;
  /** Declared by every subclass; the base class has none. */
  static readonly httpStatus?: HttpStatus;

  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** The status its class declares. */
  get httpStatus(): HttpStatus {
    return (this.constructor as typeof EngineError).httpStatus ?? 500;
  }
}

/**
 * True when `err` is an {@link EngineError} made by any copy of the engine (and, with `code`, one
 * with that code): the check to use where the error may come from the other bundle, instead of
 * `instanceof`.
 */
export function isEngineError(err: unknown, code?: string): err is EngineError {
  if (typeof err !== 'object' || err === null || (err as { [ENGINE_ERROR]?: unknown })[ENGINE_ERROR] !== true) return false;
  return code === undefined || (err as EngineError).code === code;
}

/** A request field is wrong; the message names it and what was expected. */
export class BadInputError extends EngineError {
  static override readonly httpStatus = 400;
  constructor(message: string) {
    super('bad_input', message);
  }
}

/** Redis did not answer; names REDIS_URL and how to start one. */
/**
 * A request or definition over one of the caps (security/env.ts): `cap` is the variable that sets
 * it, `limit` its value, and the message says both, e.g. `over TRELLIS_MAX_BODY_BYTES (4194304 bytes)`.
 */
export class LimitExceededError extends EngineError {
  static override readonly httpStatus = 413;
  constructor(
    readonly cap: string,
    readonly limit: number,
    message: string,
  ) {
    super('limit_exceeded', message);
  }
}

export class RedisUnreachableError extends EngineError {
  static override readonly httpStatus = 503;
  constructor(
    readonly target: string,
    detail: string,
  ) {
    super(
      'redis_unreachable',
      isCertificateRefusal(detail)
        ? `cannot reach Redis at ${target} (${detail}). The server's TLS certificate was refused: give Node the CA that signed it ` +
            '(NODE_EXTRA_CA_CERTS=<ca file>) and use the host name the certificate names in REDIS_URL.'
        : `cannot reach Redis at ${target} (${detail}). Set REDIS_URL to a running Redis, or start one: ` +
            '`redis-server --daemonize yes` or `docker compose -f docker/compose.yml up -d redis`.',
    );
  }
}

/** No mesh with that id, name or version; `hint` (optional) says how to find the one meant. */
export class MeshNotFoundError extends EngineError {
  static override readonly httpStatus = 404;
  constructor(what: string, hint?: string) {
    super('mesh_not_found', hint ? `no mesh ${what}: ${hint}` : `no mesh ${what}`);
  }
}

/** The mesh has validation errors, so it cannot run; `findings` lists them. */
export class MeshInvalidError extends EngineError {
  static override readonly httpStatus = 400;
  constructor(readonly findings: Finding[]) {
    const first = findings.find((f) => f.severity === 'error');
    super('mesh_invalid', `the mesh cannot run: ${first?.message ?? 'it has errors'}`);
  }
}

/** The run's input was refused before anything started (cause `input_rejected`). */
export class InputRejectedError extends EngineError {
  static override readonly httpStatus = 400;
  readonly cause: Cause = 'input_rejected';
  /** The failed run recorded for the refusal, when a run was asked for (see startRun). */
  runId?: string;
  constructor(readonly reason: string) {
    super('input_rejected', `the input was refused: ${reason}`);
  }
}

/**
 * Admission refused a run (runs/admission.ts): starting it would pass `cap` at once (an agent's
 * spent day budget, e.g. `budget of agent writer: tokensPerDay`). The run is recorded as failed with
 * `cause` (`runId`) and the message is the sentence shown on it. Answers 429, as a rate limit does.
 */
export class AdmissionRefusedError extends EngineError {
  static override readonly httpStatus = 429;
  constructor(
    readonly cap: string,
    readonly cause: Cause,
    message: string,
    readonly runId: string,
  ) {
    super('admission_refused', message);
  }

  /** The refusal in words, as {@link InputRejectedError.reason} (audit entries read it). */
  get reason(): string {
    return this.message;
  }
}

/** No run with that id. */
export class RunNotFoundError extends EngineError {
  static override readonly httpStatus = 404;
  constructor(runId: string) {
    super('run_not_found', `no run ${runId}`);
  }
}

/**
 * A member failed while handling a message. `retryable: false` skips the remaining attempts
 * (the same input would fail the same way), and the message is dead-lettered at once.
 */
export class StepError extends EngineError {
  static override readonly httpStatus = 500;
  /** The type of the workflow step that failed (`sql`, `http`, …), when a step did; the run's sentence names it. */
  step?: string;
  constructor(
    readonly cause: Cause,
    readonly member: string,
    message: string,
    readonly retryable = true,
  ) {
    super('step_failed', message);
  }
}

/** A caller waited longer than it was willing to. */
export class WaitTimeoutError extends EngineError {
  static override readonly httpStatus = 504;
  constructor(runId: string, seconds: number) {
    super('wait_timeout', `run ${runId} was still going after ${seconds} s`);
  }
}

/** How an error is shown to people and mapped to HTTP. */
export interface ErrorView {
  code: string;
  /** HTTP status: the error class's `httpStatus`; 503 for an unreachable database, 500 otherwise. */
  status: HttpStatus;
  message: string;
  cause?: Cause;
  findings?: Finding[];
}

/** The codes of the errors that carry a run `cause` (InputRejectedError, StepError, AdmissionRefusedError). */
const CAUSE_CODES: ReadonlySet<string> = new Set(['input_rejected', 'step_failed', 'admission_refused']);

/** Maps any thrown value to a view without internals; unknown errors become a generic 500. */
export function describeError(err: unknown): ErrorView {
  // By brand, not `instanceof`: the web server's engine is built into another bundle than its routes.
  if (isEngineError(err)) {
    const view: ErrorView = { code: err.code, status: err.httpStatus, message: err.message };
    const { cause, findings } = err as { cause?: unknown; findings?: unknown };
    if (CAUSE_CODES.has(err.code) && typeof cause === 'string') view.cause = cause as Cause;
    if (err.code === 'mesh_invalid' && Array.isArray(findings)) view.findings = findings as Finding[];
    return view;
  }
  // An error with a code and a declared status from outside the engine's classes says what it is too.
  if (err instanceof Error && typeof (err as { code?: unknown }).code === 'string' && HTTP_STATUSES.includes((err as { httpStatus?: HttpStatus }).httpStatus as HttpStatus)) {
    const { code, httpStatus } = err as Error & { code: string; httpStatus: HttpStatus };
    return { code, status: httpStatus, message: err.message };
  }
  if (err instanceof Error && err.name === 'DatabaseUnreachableError') {
    return { code: 'database_unreachable', status: 503, message: err.message };
  }
  return { code: 'internal', status: 500, message: 'something went wrong inside Trellis' };
}
