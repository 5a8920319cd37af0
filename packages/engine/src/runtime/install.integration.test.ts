/**
 * A queue prefix belongs to one install: a process whose database is another install than the one
 * that owns the prefix refuses to start, naming TRELLIS_QUEUE_PREFIX, so two installs sharing one
 * Redis cannot take each other's jobs.
 */
import { describe, expect, it } from 'vitest';
import { spawnWorker, useWorlds } from '../../test/harness';
import { createEngine } from '../kernel/engine';
import { bindQueuePrefix, installKey, QueuePrefixTakenError } from './install';
import { silentLogger } from '../kernel/log';

describe('a queue prefix is bound to one database', () => {
  const worlds = useWorlds();

  it('binds the prefix on first use, accepts the same install again, and refuses another', async () => {
    const first = await worlds.open();
    const id = await bindQueuePrefix(first.engine);
    expect(await first.engine.redis.get(installKey(first.prefix))).toBe(id);
    expect(await bindQueuePrefix(first.engine)).toBe(id);
    // A second install (its own database) given the same prefix.
    const other = await worlds.open();
    const intruder = createEngine({ db: other.handle.db, redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix: first.prefix, log: silentLogger });
    try {
      const err = await bindQueuePrefix(intruder).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(QueuePrefixTakenError);
      expect((err as Error).message).toMatch(/TRELLIS_QUEUE_PREFIX/);
      expect((err as Error).message).toContain(`install ${id}`);
      expect(await first.engine.redis.get(installKey(first.prefix))).toBe(id);
      // The embedded database's default prefix is taken over instead: its old owner was deleted.
      const taken = await bindQueuePrefix(intruder, { takeOver: true });
      expect(await first.engine.redis.get(installKey(first.prefix))).toBe(taken);
      expect(taken).not.toBe(id);
    } finally {
      await intruder.close();
    }
  });

  it('a worker process of another install refuses to start on a prefix that is not its own', { timeout: 60_000 }, async () => {
    const owner = await worlds.open();
    await bindQueuePrefix(owner.engine);
    const other = await worlds.open();
    const err = await spawnWorker({ ...other, prefix: owner.prefix }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(String(err)).toMatch(/exited \(2\)/);
    expect(String(err)).toMatch(/queue prefix "\{tt[0-9a-f]+\}" belongs to another Trellis install.*TRELLIS_QUEUE_PREFIX/);
  });
});
