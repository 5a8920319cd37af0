/** Listening to the engine's live-update events (the web server's SSE route uses this). */
import type { Engine } from '../kernel/engine';
import { eventsChannel, type EngineEvent } from './outbox';

/** A listener gets each published batch of events. */
export type EventListener = (events: EngineEvent[]) => void;

interface Hub {
  listeners: Set<EventListener>;
  ready: Promise<void>;
  close(): Promise<void>;
}

const hubs = new WeakMap<Engine, Hub>();

function hubFor(engine: Engine): Hub {
  const existing = hubs.get(engine);
  if (existing) return existing;
  const listeners = new Set<EventListener>();
  const channel = eventsChannel(engine.config.prefix);
  const local = engine.localBus;
  if (local) {
    const stop = local.subscribe(channel, (text) => deliver(listeners, text));
    const hub: Hub = {
      listeners,
      ready: Promise.resolve(),
      close() {
        hubs.delete(engine);
        stop();
        return Promise.resolve();
      },
    };
    hubs.set(engine, hub);
    return hub;
  }
  // A connection in subscriber mode can run nothing else, so the hub has its own, shared by every
  // listener of this engine.
  const sub = engine.redis.duplicate();
  sub.on('error', (err: Error) => engine.log.warn('event subscriber error', { error: err.message }));
  sub.on('message', (ch: string, text: string) => {
    if (ch === channel) deliver(listeners, text);
  });
  const hub: Hub = {
    listeners,
    ready: sub.subscribe(channel).then(() => undefined),
    async close() {
      hubs.delete(engine);
      await sub.quit().catch(() => sub.disconnect());
    },
  };
  hub.ready.catch(() => hubs.delete(engine));
  hubs.set(engine, hub);
  return hub;
}

/** Hands a published batch to every listener; unreadable text is dropped. */
function deliver(listeners: ReadonlySet<EventListener>, text: string): void {
  let events: EngineEvent[];
  try {
    const parsed = JSON.parse(text) as { events?: unknown };
    if (!Array.isArray(parsed.events)) return;
    events = parsed.events as EngineEvent[];
  } catch {
    return;
  }
  for (const l of listeners) l(events);
}

/**
 * Calls `listener` with every batch of events the engine publishes from now on. One Redis
 * subscriber connection per engine (or the in-process bus) serves all listeners; it closes when the last one leaves.
 * @returns a function that stops listening.
 * @throws the Redis error when the subscription cannot be made.
 */
export async function subscribeEvents(engine: Engine, listener: EventListener): Promise<() => Promise<void>> {
  const hub = hubFor(engine);
  hub.listeners.add(listener);
  try {
    await hub.ready;
  } catch (err) {
    hub.listeners.delete(listener);
    throw err;
  }
  return async () => {
    hub.listeners.delete(listener);
    if (hub.listeners.size === 0) await hub.close();
  };
}
