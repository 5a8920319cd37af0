/**
 * The start-up probe of Redis tries again with backoff for a bounded time: a Redis too busy to
 * answer for a few seconds (here: SIGSTOPped, as on a machine with load 10+) is not unreachable,
 * while one that never answers is reported, naming REDIS_URL.
 */
import { describe, expect, it } from 'vitest';
import { startOwnRedis } from '../../test/harness';
import { RedisUnreachableError } from '../kernel/errors';
import { assertRedis } from '../kernel/engine';

describe('the Redis probe', () => {
  it('waits out a Redis that answers late, within its bounded wait', async () => {
    const redis = await startOwnRedis(6394);
    try {
      redis.pause();
      const resumed = new Promise<number>((resolve) => setTimeout(() => {
        redis.resume();
        resolve(Date.now());
      }, 2500));
      const started = Date.now();
      await assertRedis(redis.url, { timeoutMs: 500, waitMs: 8000 });
      // It answered only after the resume: the probe did not give up on the first silent try.
      expect(Date.now()).toBeGreaterThanOrEqual(await resumed);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2500);
    } finally {
      await redis.close();
    }
  });

  it('gives up after its wait on a Redis that never answers, naming REDIS_URL', async () => {
    const redis = await startOwnRedis(6395);
    try {
      redis.pause();
      const started = Date.now();
      const err = await assertRedis(redis.url, { timeoutMs: 300, waitMs: 1500 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RedisUnreachableError);
      expect((err as Error).message).toMatch(/REDIS_URL/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    } finally {
      await redis.close();
    }
  });
});
