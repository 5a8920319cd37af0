/** Sign-in rate limits on the real Redis: 200 wrong passwords in 11 s are not possible. */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDb } from '../../test/harness';
import { addUser } from './add-user';
import { SignInLimitedError, signInGuard } from './sign-in-limit';

const PREFIX = `signin-test-${process.pid}`;
const handle = useTestDb();
let redis: Redis;
beforeAll(async () => {
  await addUser(handle.db, { email: 'target@x.test', role: 'viewer', password: 'the-right-password' });
  await addUser(handle.db, { email: 'other@x.test', role: 'viewer', password: 'the-right-password' });
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
}, 180_000);
afterAll(async () => {
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe('sign-in rate limits', () => {
  it('checks at most 10 of 200 wrong passwords for one account from one address within 11 s, then names the wait', async () => {
    const guard = signInGuard(redis, `${PREFIX}-a`);
    const started = Date.now();
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        guard.signIn(handle.db, { email: 'target@x.test', password: `guess-${i}`, address: '10.0.0.1' }).then(
          () => 'checked',
          (err: unknown) => (err instanceof SignInLimitedError ? err.message : 'other'),
        ),
      ),
    );
    expect(Date.now() - started).toBeLessThan(11_000);
    expect(outcomes.filter((o) => o === 'checked')).toHaveLength(10);
    expect(new Set(outcomes.filter((o) => o !== 'checked'))).toEqual(new Set(['too many failed sign-ins for this account from this address; try again in 15 minutes']));
    // The right password is refused too from that address while the pair is blocked.
    await expect(guard.signIn(handle.db, { email: 'TARGET@x.test', password: 'the-right-password', address: '10.0.0.1' })).rejects.toThrow(SignInLimitedError);
  }, 30_000);

  it('does not let failures from one address lock the account out from another (OWASP lockout advice)', async () => {
    const guard = signInGuard(redis, `${PREFIX}-c`, { perPair: 3, perAccount: 8, perAddress: 50, windowSeconds: 60, blockSeconds: 60 });
    const attack = (address: string) => guard.signIn(handle.db, { email: 'target@x.test', password: 'guess', address });
    for (let i = 0; i < 3; i++) expect(await attack('6.6.6.6')).toBeNull();
    await expect(attack('6.6.6.6')).rejects.toThrow('too many failed sign-ins for this account from this address; try again in 60 seconds');
    // The real user, from their own address, still signs in; the attacker's address stays blocked.
    expect(await guard.signIn(handle.db, { email: 'target@x.test', password: 'the-right-password', address: '10.1.1.1' })).toMatchObject({ email: 'target@x.test' });
    await expect(guard.signIn(handle.db, { email: 'target@x.test', password: 'the-right-password', address: '6.6.6.6' })).rejects.toThrow(SignInLimitedError);
    // Spread over many addresses, the much higher per-account limit still holds.
    for (const address of ['7.0.0.1', '7.0.0.2']) for (let i = 0; i < 3; i++) await attack(address).catch(() => undefined);
    await expect(attack('7.0.0.3')).rejects.toThrow('too many failed sign-ins for this account; try again in 60 seconds');
  }, 30_000);

  it('limits one address across accounts, and a success clears the pair count', async () => {
    const guard = signInGuard(redis, `${PREFIX}-b`, { perPair: 3, perAccount: 10, perAddress: 5, windowSeconds: 60, blockSeconds: 60 });
    for (let i = 0; i < 2; i++) expect(await guard.signIn(handle.db, { email: 'other@x.test', password: 'wrong-one', address: '1.2.3.4' })).toBeNull();
    expect(await guard.signIn(handle.db, { email: 'other@x.test', password: 'the-right-password', address: '1.2.3.4' })).not.toBeNull();
    // The pair count started again after the success: two more wrong ones are still checked.
    for (let i = 0; i < 2; i++) expect(await guard.signIn(handle.db, { email: 'other@x.test', password: 'wrong-one', address: '1.2.3.4' })).toBeNull();
    expect(await guard.signIn(handle.db, { email: 'nobody@x.test', password: 'wrong-one', address: '1.2.3.4' })).toBeNull();
    await expect(guard.signIn(handle.db, { email: 'someone@x.test', password: 'x', address: '1.2.3.4' })).rejects.toThrow(
      'too many failed sign-ins for this address; try again in 60 seconds',
    );
  }, 30_000);
});
