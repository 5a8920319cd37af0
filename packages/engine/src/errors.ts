/**
 * Typed engine errors. Every error a person may see carries a stable `code`; failures of a run also
 * carry a `cause` from the fixed cause list (DESIGN.md §4). `describeError` is the one formatter the
 * API, the web app and the CLI use to turn them into a status and a sentence, never a stack trace.
 */
import type { Cause } from '@trellis/mesh/causes';
import type { Finding } from '@trellis/mesh/findings';

/** Base class: `code` is stable and machine-readable, `message` is a sentence for a person. */
export class EngineError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Redis did not answer; names REDIS_URL and how to start one. */
export class RedisUnreachableError extends EngineError {
  constructor(
    readonly target: string,
    detail: string,
  ) {
    super(
      'redis_unreachable',
      `cannot reach Redis at ${target} (${detail}). Set REDIS_URL to a running Redis, or start one: ` +
        '`redis-server --daemonize yes` or `docker compose -f docker/compose.yml up -d redis`.',
    );
  }
}

/** No mesh with that id, name or version. */
export class MeshNotFoundError extends EngineError {
  constructor(what: string) {
    super('mesh_not_found', `no mesh ${what}`);
  }
}

/** The mesh has validation errors, so it cannot run; `findings` lists them. */
export class MeshInvalidError extends EngineError {
  constructor(readonly findings: Finding[]) {
    const first = findings.find((f) => f.severity === 'error');
    super('mesh_invalid', `the mesh cannot run: ${first?.message ?? 'it has errors'}`);
  }
}

/** The run's input was refused before anything started (cause `input_rejected`). */
export class InputRejectedError extends EngineError {
  readonly cause: Cause = 'input_rejected';
  /** The failed run recorded for the refusal, when a run was asked for (see startRun). */
  runId?: string;
  constructor(readonly reason: string) {
    super('input_rejected', `the input was refused: ${reason}`);
  }
}

/** No run with that id. */
export class RunNotFoundError extends EngineError {
  constructor(runId: string) {
    super('run_not_found', `no run ${runId}`);
  }
}

/**
 * A member failed while handling a message. `retryable: false` skips the remaining attempts
 * (the same input would fail the same way), and the message is dead-lettered at once.
 */
export class StepError extends EngineError {
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
  constructor(runId: string, seconds: number) {
    super('wait_timeout', `run ${runId} was still going after ${seconds} s`);
  }
}

/** How an error is shown to people and mapped to HTTP. */
export interface ErrorView {
  code: string;
  /** HTTP status: 400 bad input, 404 missing, 409 conflict, 503 a service is down, 500 otherwise. */
  status: number;
  message: string;
  cause?: Cause;
  findings?: Finding[];
}

const STATUS: Record<string, number> = {
  redis_unreachable: 503,
  database_unreachable: 503,
  mesh_not_found: 404,
  run_not_found: 404,
  reopen_refused: 409,
  run_ended: 409,
  queue_prefix_taken: 409,
  mesh_invalid: 400,
  input_rejected: 400,
  wait_timeout: 504,
  service_unauthorized: 401,
  service_job_not_found: 404,
  service_job_conflict: 409,
  service_exists: 409,
  bad_input: 400,
  action_refused: 409,
  action_not_found: 404,
};

/** Maps any thrown value to a view without internals; unknown errors become a generic 500. */
export function describeError(err: unknown): ErrorView {
  if (err instanceof EngineError) {
    const view: ErrorView = { code: err.code, status: STATUS[err.code] ?? 500, message: err.message };
    if (err instanceof InputRejectedError || err instanceof StepError) view.cause = err.cause;
    if (err instanceof MeshInvalidError) view.findings = err.findings;
    return view;
  }
  if (err instanceof Error && err.name === 'DatabaseUnreachableError') {
    return { code: 'database_unreachable', status: 503, message: err.message };
  }
  return { code: 'internal', status: 500, message: 'something went wrong inside Trellis' };
}
