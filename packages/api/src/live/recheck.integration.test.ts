/**
 * The live-updates stream stops once its caller's access ended: a viewer disabled, signed out or
 * demoted, or a token revoked, gets `event: access-ended` and the stream closes; the check is the
 * one every request makes (real database, the route's own `callerStillAllowed`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type DbHandle } from '@trellis/db/client';
import { createPersonalToken } from '@trellis/engine/tokens/create-token';
import { revokeToken } from '@trellis/engine/tokens/manage-tokens';
import { addUser } from '@trellis/engine/users/add-user';
import { setUserDisabled } from '@trellis/engine/users/change-user';
import { endSessions } from '@trellis/engine/users/own-account';
import type { SessionClaims } from '@trellis/engine/users/session-user';
import { verifyCredentials, type SignedInUser } from '@trellis/engine/users/verify-credentials';
import { ACCESS_ENDED, callerStillAllowed, whileAllowed } from './recheck';

let handle: DbHandle;
beforeAll(async () => {
  handle = await openDb({ dataDir: 'memory://' });
  await handle.migrate();
}, 180_000);
afterAll(async () => handle.close());

async function viewer(email: string): Promise<{ user: SignedInUser; claims: SessionClaims }> {
  await addUser(handle.db, { email, role: 'viewer', password: 'a-password-1' });
  const user = await verifyCredentials(handle.db, { email, password: 'a-password-1' });
  if (!user) throw new Error(`cannot sign in as ${email}`);
  return { user, claims: { userId: user.id, sessionVersion: user.sessionVersion } };
}

/** A stand-in for the events subscription: a message every 20 ms until cancelled. */
function ticking(): { stream: ReadableStream<Uint8Array>; cancelled: () => boolean } {
  let n = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((r) => setTimeout(r, 20));
      controller.enqueue(new TextEncoder().encode(`event: trellis\ndata: ${n++}\n\n`));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled };
}

/** Everything the stream sends until it closes (or 5 s pass). */
async function readAll(stream: ReadableStream<Uint8Array>, onFirst?: () => Promise<void>): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += decoder.decode(value);
    if (onFirst) {
      await onFirst();
      onFirst = undefined;
    }
  }
  throw new Error(`the stream was still open after 5 s: ${text.slice(-200)}`);
}

const sessionReq = () => new Request('http://127.0.0.1/api/events');

describe('the live-updates stream re-checks its caller', () => {
  it('closes a disabled viewer’s stream within the re-check interval', async () => {
    const { user, claims } = await viewer('disabled@live.test');
    const inner = ticking();
    const stream = whileAllowed(inner.stream, callerStillAllowed(handle.db, sessionReq(), claims, 'read', 'GET /api/events'), { everyMs: 100 });
    const text = await readAll(stream, async () => void (await setUserDisabled(handle.db, user.id, true)));
    expect(text).toMatch(/^event: trellis\ndata: 0\n\n/);
    expect(text.endsWith(ACCESS_ENDED)).toBe(true);
    expect(inner.cancelled()).toBe(true);
  });

  it('checks before sending: after sign-out no further event goes out, even between periodic checks', async () => {
    const { user, claims } = await viewer('signed-out@live.test');
    const inner = ticking();
    const stream = whileAllowed(inner.stream, callerStillAllowed(handle.db, sessionReq(), claims, 'read', 'GET /api/events'), { everyMs: 60_000, graceMs: 0 });
    const text = await readAll(stream, () => endSessions(handle.db, user.id));
    expect(text).toBe(`event: trellis\ndata: 0\n\n${ACCESS_ENDED}`);
  });

  it('closes a token’s stream once the token is revoked', async () => {
    const { user } = await viewer('token@live.test');
    const created = await createPersonalToken(handle.db, user, { name: 'feed', scope: 'read', expiresInDays: 30 });
    const req = new Request('http://127.0.0.1/api/events', { headers: { authorization: `Bearer ${created.token}` } });
    const stream = whileAllowed(ticking().stream, callerStillAllowed(handle.db, req, null, 'read', 'GET /api/events'), { everyMs: 100 });
    const text = await readAll(stream, async () => void (await revokeToken(handle.db, user, created.id)));
    expect(text.endsWith(ACCESS_ENDED)).toBe(true);
  });

  it('keeps a live caller’s stream open', async () => {
    const { claims } = await viewer('live@live.test');
    const reader = whileAllowed(ticking().stream, callerStillAllowed(handle.db, sessionReq(), claims, 'read', 'GET /api/events'), { everyMs: 50, graceMs: 0 }).getReader();
    const seen: string[] = [];
    for (let i = 0; i < 10; i++) seen.push(new TextDecoder().decode((await reader.read()).value));
    await reader.cancel();
    expect(seen.join('')).not.toContain('access-ended');
    expect(seen).toHaveLength(10);
  });
});
