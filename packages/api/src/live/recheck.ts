/**
 * A long-lived answer (the live-updates stream, `GET /api/events`) kept within its caller's access:
 * the caller is checked again every few seconds and before each chunk goes out, exactly as a new
 * request would be (`authorizeCaller`: session version, disabled, removed, role; a token's
 * revocation, expiry and scope). Once the check fails the stream sends `event: access-ended` and
 * closes, so a disabled or signed-out person stops receiving run events at once, not when they
 * happen to reconnect.
 */
import type { Db } from '@trellis/db/client';
import type { SignedInRule } from '@trellis/engine/users/roles';
import type { SessionClaims } from '@trellis/engine/users/session-user';
import { authorizeCaller } from '../rest/caller';

/** Options of {@link whileAllowed}. */
export interface RecheckOptions {
  /** How often the caller is checked while nothing is sent, in ms (default 5 000). */
  everyMs?: number;
  /** A chunk within this many ms of the last passed check goes out without another, in ms (default 1 000). */
  graceMs?: number;
}

/** The last message of a stream whose caller lost access. */
export const ACCESS_ENDED = 'event: access-ended\ndata: {"message":"your access ended (signed out, disabled or revoked); sign in again"}\n\n';

/**
 * Whether the caller of `req` (its bearer token, or the session `claims` read when the stream
 * opened) is still allowed `rule`; false on any refusal or failed check.
 */
export function callerStillAllowed(db: Db, req: Request, claims: SessionClaims | null, rule: SignedInRule, what: string): () => Promise<boolean> {
  return () => authorizeCaller(db, req, () => Promise.resolve(claims), rule, what).then(
    () => true,
    () => false,
  );
}

/**
 * `inner` passed through while `allowed()` holds; checked every `everyMs` and before a chunk goes
 * out (unless a check passed within `graceMs`). When it fails, {@link ACCESS_ENDED} is sent, the
 * stream closes and `inner` is cancelled (its subscriptions and timers stop).
 */
export function whileAllowed(inner: ReadableStream<Uint8Array>, allowed: () => Promise<boolean>, options: RecheckOptions = {}): ReadableStream<Uint8Array> {
  const everyMs = options.everyMs ?? 5_000;
  const graceMs = options.graceMs ?? 1_000;
  const reader = inner.getReader();
  let out: ReadableStreamDefaultController<Uint8Array> | undefined;
  let closed = false;
  let passedAt = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const check = async (): Promise<boolean> => {
    const ok = await allowed().catch(() => false);
    if (ok) passedAt = Date.now();
    return ok;
  };
  const stop = () => {
    closed = true;
    clearInterval(timer);
  };
  const end = () => {
    if (closed) return;
    stop();
    try {
      out?.enqueue(new TextEncoder().encode(ACCESS_ENDED));
      out?.close();
    } catch {
      // the client went away first
    }
    void reader.cancel().catch(() => undefined);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      out = controller;
      timer = setInterval(() => void check().then((ok) => ok || end()), everyMs);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (closed) return;
      if (done) {
        stop();
        controller.close();
        return;
      }
      if (Date.now() - passedAt >= graceMs && !(await check())) return end();
      if (!closed) controller.enqueue(value);
    },
    cancel(reason) {
      stop();
      return reader.cancel(reason);
    },
  });
}
