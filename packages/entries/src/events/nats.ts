/**
 * The NATS JetStream binding of the event mesh: a durable pull consumer per configured binding
 * (`nats.bindings`), explicit acks. Each message is handed to {@link handleDelivery} with the key
 * `nats:<stream>:<stream sequence>`, which JetStream keeps for every redelivery of that message, so a
 * crash between receive and ack redelivers it and the run it may already have started is found
 * again instead of started twice. Answers go to the binding's `replySubject` as JSON, with the
 * headers `Trellis-Run-Id` and `Trellis-Source` (the key).
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/nats-core';
import type { Engine } from '@trellis/engine/engine';
import type { Logger } from '@trellis/engine/log';
import type { EventBinding } from '../config';
import { handleDelivery, type CrashPoint, type Delivery, type DeliveryOutcome } from './binding';

/** A running set of subscriptions. */
export interface EventSubscriptions {
  /** Settles each time a delivery has been handled (tests wait on it). */
  onHandled(listener: (outcome: DeliveryOutcome, key: string) => void): void;
  close(): Promise<void>;
}

const NANOS_PER_SECOND = 1_000_000_000;

/** The durable consumer name of a binding. */
export function consumerName(binding: EventBinding): string {
  return binding.consumer ?? `trellis-${binding.mesh}`;
}

function deliveryOf(nc: NatsConnection, binding: EventBinding, msg: JsMsg): Delivery {
  const key = `nats:${msg.info.stream}:${msg.seq}`;
  const type = msg.headers?.get('Content-Type') ?? '';
  const name = msg.headers?.get('Trellis-Name') || undefined;
  return {
    key,
    data: msg.data,
    name,
    json: /^application\/json\b/i.test(type),
    async ack() {
      // ackAck waits for the server's confirmation: once it resolves, no redelivery will come.
      await msg.ackAck();
    },
    nak(delayMs) {
      msg.nak(delayMs);
    },
    async reply(body, runId) {
      if (!binding.replySubject) return;
      const h = natsHeaders();
      h.set('Content-Type', 'application/json');
      h.set('Trellis-Source', key);
      if (runId) h.set('Trellis-Run-Id', runId);
      nc.publish(binding.replySubject, JSON.stringify(body), { headers: h });
      await nc.flush();
    },
  };
}

/**
 * Makes sure each binding's durable consumer exists on its stream (the stream is the admin's to
 * create), then consumes them until closed.
 * @throws when NATS cannot be reached or a stream does not exist.
 */
export async function startEventSubscriptions(
  engine: Engine,
  config: { servers: string; bindings: EventBinding[] },
  log: Logger,
  options: { crash?: CrashPoint } = {},
): Promise<EventSubscriptions> {
  const nc = await connect({ servers: config.servers, name: 'trellis-entries' });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const listeners: ((outcome: DeliveryOutcome, key: string) => void)[] = [];
  const consumers: ConsumerMessages[] = [];
  const loops: Promise<void>[] = [];
  for (const binding of config.bindings) {
    const durable = consumerName(binding);
    await jsm.consumers.add(binding.stream, {
      durable_name: durable,
      filter_subject: binding.subject,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: binding.ackWaitSeconds * NANOS_PER_SECOND,
    });
    const consumer = await js.consumers.get(binding.stream, durable);
    const messages = await consumer.consume({ max_messages: 16 });
    consumers.push(messages);
    const ctx = { engine, log, meshName: binding.mesh, via: `nats:${binding.stream}/${binding.subject}`, answerWaitMs: binding.answerWaitSeconds * 1000, crash: options.crash };
    loops.push(
      (async () => {
        for await (const msg of messages) {
          const delivery = deliveryOf(nc, binding, msg);
          // The reply waits for the run's end in the background; the consumer goes on at once.
          const { outcome } = await handleDelivery(ctx, delivery);
          for (const l of listeners) l(outcome, delivery.key);
        }
      })().catch((err: unknown) => log.error(`event binding ${binding.stream}/${binding.subject}: ${err instanceof Error ? err.message : String(err)}`)),
    );
  }
  return {
    onHandled(listener) {
      listeners.push(listener);
    },
    async close() {
      for (const m of consumers) m.stop();
      await Promise.all(loops);
      // Replies still waiting for their runs are dropped; the runs go on and are read over REST.
      await nc.drain();
    },
  };
}
