/**
 * Signed webhooks end to end on real Postgres and Redis: a signed request starts a run whose answer
 * is read back; a replay answers with the same run; GitHub's form works; a bad, stale or missing
 * signature is 401 with the one error shape and recorded; a callback URL receives the answer,
 * signed the same way, retried after a failure; a callback host the egress policy refuses is kept
 * as the callback's error.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { runCallbacks, webhookRefusals } from '@trellis/db/schema/webhooks';
import { waitForAnswer } from '@trellis/engine/runs/wait-answer';
import { createWebhook } from '@trellis/engine/webhooks/manage-webhooks';
import { githubSignatureHeader, signatureHeader, verifySignature } from '@trellis/engine/webhooks/signature';
import { addUser } from '@trellis/engine/users/add-user';
import { allowInternal, saveOrThrow, useWorlds, WORD_SPLIT, type TestWorld } from '../../../engine/test/harness';
import { handleRest } from './routes';

async function post(world: TestWorld, hookId: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const res = await handleRest(
    { engine: () => Promise.resolve(world.engine), session: () => Promise.resolve(null) },
    new Request(`http://t.test/api/v1/hooks/${hookId}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } }),
  );
  return { status: res.status, body: await res.json() };
}

async function admin(world: TestWorld) {
  const user = await addUser(world.engine.db, { email: 'admin@hooks.test', role: 'admin', password: 'hooks-test-password' });
  return { id: user.id, email: 'admin@hooks.test' };
}

/** A local receiver answering each request with the next status of `statuses` (then 200). */
async function receiver(statuses: number[]) {
  const got: { headers: IncomingMessage['headers']; body: string; at: number }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      got.push({ headers: req.headers, body, at: Date.now() });
      res.statusCode = statuses.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { got, url: `http://127.0.0.1:${port}/hook-result`, host: `127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

describe('signed webhooks', () => {
  const worlds = useWorlds();

  it('start a run on a signed request, answer a replay with the same run, and refuse bad signatures with 401, recorded', async () => {
    const world = await worlds.open();
    await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
    worlds.start(world, { pools: ['default'], concurrency: 4 });
    const hook = await createWebhook(world.engine, { name: 'orders', mesh: 'word-split', actor: await admin(world) });
    expect(hook.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const body = JSON.stringify({ text: 'signed words' });
    const headers = { 'trellis-signature': signatureHeader(hook.secret, body) };

    const first = await post(world, hook.id, body, headers);
    expect(first).toMatchObject({ status: 201, body: { status: 'running', reused: false } });
    const runId = (first.body as { runId: string }).runId;
    expect(await waitForAnswer(world.engine.db, runId, { timeoutMs: 20_000 })).toMatchObject({ status: 'done', output: { text: 'signed words' } });
    expect(await post(world, hook.id, body, headers)).toEqual({ status: 201, body: { runId, status: 'done', reused: true } });

    const gh = await post(world, hook.id, body, { 'x-hub-signature-256': githubSignatureHeader(hook.secret, body), 'x-github-delivery': 'delivery-1' });
    expect(gh).toMatchObject({ status: 201, body: { reused: false } });
    expect(await post(world, hook.id, body, { 'x-hub-signature-256': githubSignatureHeader(hook.secret, body), 'x-github-delivery': 'delivery-1' })).toMatchObject({ body: { reused: true } });

    const wrong = await post(world, hook.id, body, { 'trellis-signature': signatureHeader('whsec_other', body) });
    expect(wrong).toEqual({ status: 401, body: { error: { code: 'signature_invalid', message: "refused by the webhook signature check: Trellis-Signature: no v1 signature matches the body under this webhook's secret" } } });
    const stale = await post(world, hook.id, body, { 'trellis-signature': signatureHeader(hook.secret, body, Date.now() - 301_000) });
    expect(stale.status).toBe(401);
    expect((stale.body as { error: { message: string } }).error.message).toMatch(/outside the 300 s replay window/);
    expect((await post(world, hook.id, body, {})).status).toBe(401);
    expect((await post(world, 'no-such-hook', body, headers)).status).toBe(401);
    const refusals = await world.engine.db.select().from(webhookRefusals).orderBy(webhookRefusals.id);
    expect(refusals.map((r) => [r.webhookId === hook.id ? 'hook' : r.webhookId, r.reason])).toEqual([
      ['hook', 'mismatch'],
      ['hook', 'stale'],
      ['hook', 'unsigned'],
      ['no-such-hook', 'unknown'],
    ]);
    // Signed but bad: refused with the same error shape as every entry point.
    const notObject = '[1,2]';
    const refused = await post(world, hook.id, notObject, { 'trellis-signature': signatureHeader(hook.secret, notObject) });
    expect(refused).toEqual({ status: 400, body: { error: { code: 'input_rejected', message: 'the input was refused: a payload must be a JSON object' } } });
  }, 60_000);

  it('send the answer to the callback URL when the run ends, signed, retried after a failure; an egress refusal is kept', async () => {
    const world = await worlds.open();
    await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
    const target = await receiver([503]);
    try {
      await allowInternal(world, target.host);
      worlds.start(world, { pools: ['default'], concurrency: 4 });
      const actor = await admin(world);
      const hook = await createWebhook(world.engine, { name: 'with-callback', mesh: 'word-split', callbackUrl: target.url, actor });
      const body = JSON.stringify({ text: 'call me back' });
      const started = await post(world, hook.id, body, { 'trellis-signature': signatureHeader(hook.secret, body) });
      const runId = (started.body as { runId: string }).runId;
      for (let i = 0; i < 200 && target.got.length < 2; i++) await new Promise((r) => setTimeout(r, 100));
      expect(target.got).toHaveLength(2);
      const [failed, delivered] = target.got;
      // The retry waited at least the first backoff (1 s).
      expect((delivered?.at ?? 0) - (failed?.at ?? 0)).toBeGreaterThanOrEqual(900);
      const sent = JSON.parse(delivered?.body ?? '{}') as Record<string, unknown>;
      expect(sent).toMatchObject({ event: 'run.ended', runId, status: 'done', output: { text: 'call me back' }, cause: null });
      const headers = new Headers(Object.entries(delivered?.headers ?? {}).map(([k, v]) => [k, String(v)]));
      expect(verifySignature(headers, new TextEncoder().encode(delivered?.body ?? ''), hook.secret)).toMatchObject({ ok: true });
      expect(headers.get('trellis-delivery')).toBe(runId);
      const [row] = await world.engine.db.select().from(runCallbacks).where(eq(runCallbacks.runId, runId));
      expect(row).toMatchObject({ state: 'delivered', attempts: 2 });

      // A callback host the egress policy does not allow (loopback, not listed): never reached, the refusal kept.
      const blocked = await createWebhook(world.engine, { name: 'blocked', mesh: 'word-split', callbackUrl: 'http://127.0.0.1:9/x', actor });
      const b = JSON.stringify({ text: 'nowhere' });
      const run2 = ((await post(world, blocked.id, b, { 'trellis-signature': signatureHeader(blocked.secret, b) })).body as { runId: string }).runId;
      let kept: typeof row;
      for (let i = 0; i < 200; i++) {
        [kept] = await world.engine.db.select().from(runCallbacks).where(eq(runCallbacks.runId, run2));
        if (kept?.lastError) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(kept).toMatchObject({ state: 'waiting', attempts: 1 });
      expect(kept?.lastError).toMatch(/^refused by the egress policy: /);
    } finally {
      await target.close();
    }
  }, 60_000);
});
