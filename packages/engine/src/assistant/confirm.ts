/**
 * Confirmation tokens for actions the assistant proposes (re-open, mark urgent). A token is bound
 * to the exact action (its kind, run ids, and a re-open's version), the person and an expiry, and signed with HMAC-SHA256 with a key made
 * once per process; the action runs only when the same person answers "yes" with that token. A
 * restart of the server forgets the key, so a pending question has to be asked again.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A re-open the assistant proposed. */
export interface ReopenAction {
  kind: 'reopen';
  runIds: string[];
  version: 'pinned' | 'latest';
}

/** Marking runs urgent (runs/mark-urgent.ts), as the assistant proposed it. */
export interface UrgentAction {
  kind: 'urgent';
  runIds: string[];
}

/** The action a token stands for. */
export type ConfirmAction = ReopenAction | UrgentAction;

const KEY = randomBytes(32);
/** How long a proposal stays valid (ms). */
export const CONFIRM_TTL_MS = 10 * 60 * 1000;

function sign(body: string): string {
  return createHmac('sha256', KEY).update(body).digest('base64url');
}

/** Signs `action` for `userId`; the token expires after {@link CONFIRM_TTL_MS}. */
export function issueToken(action: ConfirmAction, userId: string, now = Date.now()): string {
  const body = Buffer.from(JSON.stringify({ a: { ...action, runIds: [...action.runIds].sort() }, u: userId, e: now + CONFIRM_TTL_MS })).toString('base64url');
  return `${body}.${sign(body)}`;
}

/**
 * The action a token stands for, when it is genuine, unexpired and issued to `userId`.
 * @throws Error saying why the token cannot be used (tampered, expired, someone else's).
 */
export function redeemToken(token: string, userId: string, now = Date.now()): ConfirmAction {
  const [body, mac] = token.split('.');
  if (!body || !mac) throw new Error('that confirmation is not one the assistant issued');
  const want = Buffer.from(sign(body));
  const got = Buffer.from(mac);
  if (want.length !== got.length || !timingSafeEqual(want, got)) throw new Error('that confirmation is not one the assistant issued');
  const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { a: ConfirmAction; u: string; e: number };
  if (parsed.u !== userId) throw new Error('that confirmation was given to someone else');
  if (parsed.e < now) throw new Error('that confirmation has expired; ask again');
  return parsed.a;
}
