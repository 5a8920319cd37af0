/**
 * Pub/sub for the engine's signals (live events, service wake-ups), on whichever bus the engine
 * runs: Redis PUBLISH, or the in-process bus's emitter (kernel/local-bus.ts).
 */
import type { Engine } from './engine';

/** Publishes `text` on `channel`. @throws the Redis error on the Redis bus. */
export async function publishSignal(engine: Engine, channel: string, text: string): Promise<void> {
  if (engine.localBus) {
    engine.localBus.publish(channel, text);
    return;
  }
  await engine.redis.publish(channel, text);
}
