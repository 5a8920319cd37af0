/**
 * The interface every event-mesh binding (NATS JetStream here; MQTT or AMQP the same way, see
 * docs/entries.md) plugs into: a delivered message becomes a run through the shared entry use case,
 * and the message is acknowledged only after the run row is committed. The binding supplies the
 * transport's parts: a stable delivery key, the bytes, ack and nak, and where the answer goes.
 */
import type { Engine } from '@trellis/engine/engine';
import { EngineError } from '@trellis/engine/errors';
import type { Logger } from '@trellis/engine/log';
import { entryAnswer, entryError, startBridgeRun, type EntryAnswer, type EntryErrorBody } from '../entry-run';

/** One delivered message, as a transport binding hands it over. */
export interface Delivery {
  /**
   * The same on every redelivery of this message and different for every other one: JetStream's
   * `<stream>:<stream sequence>`, an AMQP message id, an MQTT 5 correlation id.
   */
  key: string;
  data: Uint8Array;
  /** A label for the run (a file name), when the message carries one. */
  name?: string | undefined;
  /** True when the message is a JSON object to send as the head's payload (content type application/json). */
  json: boolean;
  /** Acknowledge: the transport forgets the message. Resolves once the broker confirmed it, when it can. */
  ack(): Promise<void>;
  /** Ask for a redelivery later (the run could not be committed). */
  nak(delayMs: number): void;
  /** Publish the answer (or refusal) where the binding's config says; nothing when none is configured. */
  reply(body: EntryAnswer | EntryErrorBody, runId: string | undefined): Promise<void>;
}

/** What handling one delivery did, for logs and tests. */
export type DeliveryOutcome = { kind: 'started'; runId: string; reused: boolean } | { kind: 'refused'; code: string } | { kind: 'retry'; message: string };

/** Test-only faults (env TRELLIS_TEST_ENTRY_CRASH): the process kills itself at that point. Never set in production. */
export type CrashPoint = 'before-commit' | 'after-commit' | undefined;

/** What a binding needs to hand a delivery over. */
export interface DeliveryContext {
  engine: Engine;
  log: Logger;
  meshName: string;
  /** What carried it, for the run's audit entry (e.g. `nats:CLAIMS/claims.in`). */
  via: string;
  /** How long to wait for the run's end before replying with its status, in ms. */
  answerWaitMs: number;
  crash?: CrashPoint;
  /** Delay before a refused-for-now delivery comes again (ms). */
  retryDelayMs?: number;
}

function crash(point: CrashPoint, at: CrashPoint): void {
  if (point !== undefined && point === at) process.kill(process.pid, 'SIGKILL');
}

/**
 * Starts (or finds again, by the delivery key) the run for one delivery, then acks; replies with the
 * answer in the background once the run ends (or the wait runs out). A refusal the engine decided
 * (a bad input, a mesh with findings or not found: status 4xx) is acked and replied, since delivering
 * it again cannot change it; anything else (the database down) is nak'ed for a later redelivery.
 * @returns the outcome, and `answered`, which settles when the reply has been published.
 */
export async function handleDelivery(ctx: DeliveryContext, d: Delivery): Promise<{ outcome: DeliveryOutcome; answered: Promise<void> }> {
  crash(ctx.crash, 'before-commit');
  let runId: string;
  let reused: boolean;
  try {
    const input = d.json ? { payload: parseJson(d.data), ...(d.name ? { name: d.name } : {}) } : { bytes: d.data, ...(d.name ? { name: d.name } : {}) };
    ({ runId, reused } = await startBridgeRun(ctx.engine, { meshName: ctx.meshName, input, idempotencyKey: d.key, entry: 'event', actor: null, via: ctx.via }));
  } catch (err) {
    const { status, body } = entryError(err);
    if (err instanceof EngineError && status < 500) {
      await d.ack();
      const refusedRun = (err as { runId?: string }).runId;
      return { outcome: { kind: 'refused', code: body.error.code }, answered: d.reply(body, refusedRun) };
    }
    ctx.log.warn(`event ${d.key}: the run could not be started (${body.error.message}); it will be delivered again`);
    d.nak(ctx.retryDelayMs ?? 1000);
    return { outcome: { kind: 'retry', message: body.error.message }, answered: Promise.resolve() };
  }
  crash(ctx.crash, 'after-commit');
  await d.ack();
  const answered = entryAnswer(ctx.engine, runId, ctx.answerWaitMs)
    .then((answer) => d.reply(answer, runId))
    .catch((err: unknown) => ctx.log.warn(`event ${d.key}: the answer of run ${runId} could not be published (${entryError(err).body.error.message})`));
  return { outcome: { kind: 'started', runId, reused }, answered };
}

/** A JSON message body; a body that does not parse is given as is, and the engine refuses it by name. */
function parseJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data)) as unknown;
  } catch {
    return new TextDecoder().decode(data);
  }
}
