/**
 * Sign-in rate limits, kept in Redis (rate-limiter-flexible's `RateLimiterRedis`, the "login
 * endpoint protection" pattern from its wiki): sign-in attempts are counted per account and per
 * address; once either count is used up, sign-in is refused with how long to wait, before the
 * password is even checked. A success clears the account's count and gives the address its point back. With the defaults an account
 * takes at most 10 wrong passwords per 15 minutes, so 200 in 11 s is impossible.
 */
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '@trellis/db/client';
import { recordAudit } from '../audit/append';
import { EngineError } from '../kernel/errors';
import { verifyCredentials, type SignedInUser } from './verify-credentials';

/** Failed sign-ins allowed per window, and the window and block lengths in seconds. */
export interface SignInLimits {
  perAccount: number;
  perAddress: number;
  windowSeconds: number;
  blockSeconds: number;
}

/** The defaults: 10 per account and 50 per address per 15 minutes, then a 15-minute wait. */
export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = { perAccount: 10, perAddress: 50, windowSeconds: 900, blockSeconds: 900 };

/** Too many failed sign-ins (HTTP 429); says for whom and how long to wait. */
export class SignInLimitedError extends EngineError {
  static override readonly httpStatus = 429;
  constructor(
    readonly scope: 'account' | 'address',
    readonly retryAfterSeconds: number,
  ) {
    const wait = retryAfterSeconds >= 120 ? `${Math.ceil(retryAfterSeconds / 60)} minutes` : `${retryAfterSeconds} seconds`;
    super('sign_in_limited', `too many failed sign-ins for this ${scope}; try again in ${wait}`);
  }
}

/** A sign-in guarded by the limits. */
export interface SignInGuard {
  /**
   * The user for the email and password, or null for a wrong one (which stays counted).
   * @throws SignInLimitedError while the account or the address is blocked.
   */
  signIn(db: Db, input: { email: string; password: string; address: string }): Promise<SignedInUser | null>;
}

/** Builds the guard on `redis`; `prefix` keeps installs (and tests) sharing one Redis apart. */
export function signInGuard(redis: Redis, prefix: string, limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS): SignInGuard {
  const make = (points: number, name: string) =>
    new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:signin:${name}`, points, duration: limits.windowSeconds, blockDuration: limits.blockSeconds });
  const byAccount = make(limits.perAccount, 'account');
  const byAddress = make(limits.perAddress, 'address');

  return {
    async signIn(db, input) {
      const account = input.email.trim().toLowerCase();
      // Counted before the password is checked (atomically, in Redis), so parallel guesses cannot
      // all slip past a check made before any of them was counted.
      const detail = { address: input.address };
      try {
        await take(byAccount, account, 'account');
        await take(byAddress, input.address, 'address');
      } catch (err) {
        if (err instanceof SignInLimitedError) await recordAudit(db, { actor: { id: null, email: account }, action: 'sign_in.limited', target: account, detail: { ...detail, scope: err.scope } });
        throw err;
      }
      const user = await verifyCredentials(db, input);
      if (user) await Promise.all([byAccount.delete(account), byAddress.reward(input.address, 1)]);
      await recordAudit(db, { actor: { id: user?.id ?? null, email: account }, action: user ? 'sign_in' : 'sign_in.failed', target: account, detail });
      return user;
    },
  };
}

async function take(limiter: RateLimiterRedis, key: string, scope: 'account' | 'address'): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (err) {
    if (err instanceof RateLimiterRes) throw new SignInLimitedError(scope, Math.max(1, Math.ceil(err.msBeforeNext / 1000)));
    throw err;
  }
}
