/**
 * Sign-in rate limits, kept in Redis (rate-limiter-flexible's `RateLimiterRedis`, the "login
 * endpoint protection" pattern from its wiki, and the OWASP Authentication Cheat Sheet's advice
 * that lockout must not let an attacker lock a user out from elsewhere). Attempts are counted
 * before the password is checked, three ways:
 * - per account and address pair, strictly: consecutive failures of one account from one address
 *   (10 per 15 minutes by default); a success clears the pair;
 * - per account, only a much higher limit (100 per 15 minutes), so an attacker guessing from a few
 *   addresses blocks those addresses, not the real user signing in from their own;
 * - per address across accounts (50 per 15 minutes), against one address spraying many accounts.
 * Once a count is used up, sign-in is refused with how long to wait. A success clears the pair
 * and gives the account and the address their point back. 200 guesses in 11 s from one address are
 * impossible; spread over many addresses, at most 100 are checked.
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Db } from '@trellis/db/client';
import { recordAudit } from '../audit/append';
import { EngineError } from '../kernel/errors';
import { verifyCredentials, type SignedInUser } from './verify-credentials';

/** Failed sign-ins allowed per window, and the window and block lengths in seconds. */
export interface SignInLimits {
  /** Consecutive failures of one account from one address. */
  perPair: number;
  /** Failures of one account from all addresses: much higher than `perPair`. */
  perAccount: number;
  /** Failures from one address across all accounts. */
  perAddress: number;
  windowSeconds: number;
  blockSeconds: number;
}

/** The defaults: 10 per account and address, 100 per account, 50 per address per 15 minutes, then a 15-minute wait. */
export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = { perPair: 10, perAccount: 100, perAddress: 50, windowSeconds: 900, blockSeconds: 900 };

/** Which count ran out: the account from this address, the account, or the address. */
export type SignInLimitScope = 'pair' | 'account' | 'address';

const SCOPE_WORDS: Record<SignInLimitScope, string> = { pair: 'this account from this address', account: 'this account', address: 'this address' };

/** Too many failed sign-ins (HTTP 429); says for whom and how long to wait. */
export class SignInLimitedError extends EngineError {
  static override readonly httpStatus = 429;
  constructor(
    readonly scope: SignInLimitScope,
    readonly retryAfterSeconds: number,
  ) {
    const wait = retryAfterSeconds >= 120 ? `${Math.ceil(retryAfterSeconds / 60)} minutes` : `${retryAfterSeconds} seconds`;
    super('sign_in_limited', `too many failed sign-ins for ${SCOPE_WORDS[scope]}; try again in ${wait}`);
  }
}

/** A sign-in guarded by the limits. */
export interface SignInGuard {
  /**
   * The user for the email and password, or null for a wrong one (which stays counted).
   * @throws SignInLimitedError while the pair, the account or the address is blocked.
   */
  signIn(db: Db, input: { email: string; password: string; address: string }): Promise<SignedInUser | null>;
}

/**
 * Builds the guard on `redis`; `prefix` keeps installs (and tests) sharing one Redis apart. With
 * `redis` undefined (the single-process mode, no Redis) the counts are kept in this process's memory.
 */
export function signInGuard(redis: Redis | undefined, prefix: string, limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS): SignInGuard {
  const make = (points: number, name: string) => {
    const settings = { keyPrefix: `${prefix}:signin:${name}`, points, duration: limits.windowSeconds, blockDuration: limits.blockSeconds };
    return redis ? new RateLimiterRedis({ storeClient: redis, ...settings }) : new RateLimiterMemory(settings);
  };
  const byPair = make(limits.perPair, 'pair');
  const byAccount = make(limits.perAccount, 'account');
  const byAddress = make(limits.perAddress, 'address');

  return {
    async signIn(db, input) {
      const account = input.email.trim().toLowerCase();
      // Counted before the password is checked (atomically, in Redis), so parallel guesses cannot
      // all slip past a check made before any of them was counted.
      const detail = { address: input.address };
      const pair = `${account}|${input.address}`;
      try {
        await take(byPair, pair, 'pair');
        await take(byAccount, account, 'account');
        await take(byAddress, input.address, 'address');
      } catch (err) {
        if (err instanceof SignInLimitedError) await recordAudit(db, { actor: { id: null, email: account }, action: 'sign_in.limited', target: account, detail: { ...detail, scope: err.scope } });
        throw err;
      }
      const user = await verifyCredentials(db, input);
      if (user) await Promise.all([byPair.delete(pair), byAccount.reward(account, 1), byAddress.reward(input.address, 1)]);
      await recordAudit(db, { actor: { id: user?.id ?? null, email: account }, action: user ? 'sign_in' : 'sign_in.failed', target: account, detail });
      return user;
    },
  };
}

async function take(limiter: RateLimiterAbstract, key: string, scope: SignInLimitScope): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (err) {
    if (err instanceof RateLimiterRes) throw new SignInLimitedError(scope, Math.max(1, Math.ceil(err.msBeforeNext / 1000)));
    throw err;
  }
}
