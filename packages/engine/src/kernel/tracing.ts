/**
 * Trace spans of message steps (OpenTelemetry API only; the SDK and its OTLP exporter are started
 * by runtime/tracing.ts when OTEL_EXPORTER_OTLP_ENDPOINT is set). One trace per run: its trace id
 * is derived from the run id alone ({@link runTraceId}), so the spans every worker process writes
 * for one run land in one trace without passing any context along the queue. Each step's span is a
 * child of the run's root span id ({@link runRootSpanId}), also derived from the run id; the root
 * span itself is written once the run has ended ({@link recordRunSpan}, by the orchestrator's event
 * pump), from the run's creation to its end, with those same ids (runtime/tracing.ts's id
 * generator hands them to the SDK).
 * While tracing is off nothing here allocates a span: the hot path pays one boolean test.
 */
import { createHash } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Context } from '@opentelemetry/api';
import { processSingleton } from './process-singleton';

/** The tracer name spans carry (instrumentation scope). */
export const TRACER_NAME = 'trellis-engine';

/**
 * Whether spans are recorded, and the ids {@link recordRunSpan} hands the SDK: one per process
 * (kernel/process-singleton.ts), since the SDK is started from one bundle of the web server and
 * spans may be recorded from another.
 */
const state = processSingleton('tracing.v1', () => ({ enabled: false, planned: undefined as { traceId: string; spanId: string } | undefined }));

/** Turns span recording on or off (runtime/tracing.ts turns it on once its SDK is registered). */
export function setTracing(on: boolean): void {
  state.enabled = on;
}

/** True while spans are recorded. */
export function tracingOn(): boolean {
  return state.enabled;
}

const hex = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The trace id of run `runId` (32 hex digits): the run id itself when it is a UUID (run ids are
 * UUIDv7), else the first 128 bits of its SHA-256. Same run, same trace, in every process.
 */
export function runTraceId(runId: string): string {
  const plain = runId.replace(/-/g, '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(plain) && !/^0+$/.test(plain) ? plain : hex(runId).slice(0, 32);
}

/** The span id (16 hex digits) the steps of run `runId` hang under: 64 bits of SHA-256 of `run:<id>`. */
export function runRootSpanId(runId: string): string {
  return hex(`run:${runId}`).slice(0, 16);
}

/** A context whose (remote) parent is run `runId`'s root span, for spans of that run. */
export function runContext(runId: string): Context {
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: runTraceId(runId), spanId: runRootSpanId(runId), traceFlags: TraceFlags.SAMPLED, isRemote: true });
}

/**
 * The ids the SDK must give the span it is starting right now, or undefined for ids of its own
 * (runtime/tracing.ts's id generator asks this first). Set only inside {@link recordRunSpan}'s
 * synchronous `startSpan`.
 */
export function plannedSpanIds(): { traceId: string; spanId: string } | undefined {
  return state.planned;
}

/** What a run's root span says about its run. */
export interface RunSpan {
  runId: string;
  meshId: string;
  meshName: string;
  /** How the run ended: `done`, `failed` or `cancelled`. */
  status: string;
  cause: string | null;
  /** The cause in words (`runs.cause_message`), the error status's message when it failed. */
  causeMessage: string | null;
  /** When the run was created and when it ended, ms since the epoch. */
  createdAt: number;
  endedAt: number;
}

/**
 * Records an ended run's root span `run <mesh name>`, from its creation to its end: trace id
 * {@link runTraceId}, span id {@link runRootSpanId}, no parent, so its step spans hang under it.
 * Attributes `trellis.run_id`, `trellis.mesh_id`, `trellis.mesh`, `trellis.status` and, when it
 * failed, `trellis.cause`; status OK when done, ERROR (with the cause in words) when failed, unset
 * when cancelled. A no-op while tracing is off.
 */
export function recordRunSpan(r: RunSpan): void {
  if (!state.enabled) return;
  state.planned = { traceId: runTraceId(r.runId), spanId: runRootSpanId(r.runId) };
  let span;
  try {
    span = trace.getTracer(TRACER_NAME).startSpan(
      `run ${r.meshName}`,
      {
        kind: SpanKind.INTERNAL,
        root: true,
        startTime: r.createdAt,
        attributes: {
          'trellis.run_id': r.runId,
          'trellis.mesh_id': r.meshId,
          'trellis.mesh': r.meshName,
          'trellis.status': r.status,
          ...(r.cause ? { 'trellis.cause': r.cause } : {}),
        },
      },
      ROOT_CONTEXT,
    );
  } finally {
    state.planned = undefined;
  }
  if (r.status === 'done') span.setStatus({ code: SpanStatusCode.OK });
  else if (r.status === 'failed') span.setStatus({ code: SpanStatusCode.ERROR, message: r.causeMessage ?? r.cause ?? 'failed' });
  span.end(Math.max(r.endedAt, r.createdAt));
}

/** What a step span says about its message. */
export interface StepSpan {
  runId: string;
  messageId: string;
  member: string;
  kind: string;
  /** Which delivery of the message this is, 1 for the first (the claimed row's `attempts`). */
  attempt: number;
  /** When the step started and ended, ms since the epoch. */
  startedAt: number;
  endedAt: number;
  /** The step's error, when it failed. */
  error?: Error;
}

/**
 * Records one finished step as span `step <member>` with attributes `trellis.run_id`,
 * `trellis.message_id`, `trellis.member`, `trellis.kind` and `trellis.attempt`. A no-op while
 * tracing is off.
 */
export function recordStepSpan(s: StepSpan): void {
  if (!state.enabled) return;
  const span = trace.getTracer(TRACER_NAME).startSpan(
    `step ${s.member}`,
    {
      kind: SpanKind.CONSUMER,
      startTime: s.startedAt,
      attributes: {
        'trellis.run_id': s.runId,
        'trellis.message_id': s.messageId,
        'trellis.member': s.member,
        'trellis.kind': s.kind,
        'trellis.attempt': s.attempt,
      },
    },
    runContext(s.runId),
  );
  if (s.error) {
    span.recordException(s.error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: s.error.message });
  }
  span.end(s.endedAt);
}
