/**
 * Webhook signatures (pure). Trellis's form, sent on requests to a webhook and on its callbacks:
 *
 *   Trellis-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the secret>
 *
 * (several `v1=` entries may be given, e.g. while a sender rotates keys; one matching is enough),
 * accepted when `t` is within {@link REPLAY_WINDOW_S} of the receiver's clock, either way. GitHub's
 * form is also accepted: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`; it has no
 * timestamp, so replays of it are kept to one run by its `X-GitHub-Delivery` id (see receive.ts).
 * Comparisons are constant-time (`timingSafeEqual`).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The replay window, in seconds (5 minutes), either side of the receiver's clock. */
export const REPLAY_WINDOW_S = 300;

/** Header names, lower case as `Headers` gives them. */
export const SIGNATURE_HEADER = 'trellis-signature';
export const GITHUB_SIGNATURE_HEADER = 'x-hub-signature-256';

/** The hex HMAC-SHA256 of `<t>.<body>` under `secret`. */
export function signTimestamped(secret: string, t: number, body: Uint8Array | string): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}

/** The `Trellis-Signature` value for `body` at `nowMs` (default now). */
export function signatureHeader(secret: string, body: Uint8Array | string, nowMs = Date.now()): string {
  const t = Math.floor(nowMs / 1000);
  return `t=${t},v1=${signTimestamped(secret, t, body)}`;
}

/** The `X-Hub-Signature-256` value for `body` (GitHub's form). */
export function githubSignatureHeader(secret: string, body: Uint8Array | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Why a request's signature was refused. */
export type SignatureRefusal = 'unsigned' | 'malformed' | 'stale' | 'mismatch';

/** The outcome of {@link verifySignature}. */
export type SignatureCheck =
  | { ok: true; form: 'trellis' | 'github'; /** Same for a replay of the same signed request. */ replayKey: string }
  | { ok: false; reason: SignatureRefusal; detail: string };

function sameHex(a: string, b: string): boolean {
  if (!/^[0-9a-f]{64}$/i.test(a)) return false;
  const x = Buffer.from(a.toLowerCase(), 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/**
 * Checks the request's signature over its raw `body` under `secret`, at `nowMs`. The Trellis form
 * wins when both headers are present.
 */
export function verifySignature(headers: Headers, body: Uint8Array, secret: string, nowMs = Date.now()): SignatureCheck {
  const trellis = headers.get(SIGNATURE_HEADER);
  if (trellis !== null) {
    const parts = trellis.split(',').map((p) => p.trim().split('='));
    const t = parts.find(([k]) => k === 't')?.[1];
    const sigs = parts.filter(([k]) => k === 'v1').map(([, v]) => v ?? '');
    if (!t || !/^\d{1,12}$/.test(t) || sigs.length === 0) {
      return { ok: false, reason: 'malformed', detail: 'Trellis-Signature: expected t=<unix seconds>,v1=<hex HMAC-SHA256>' };
    }
    const skew = Math.abs(Math.floor(nowMs / 1000) - Number(t));
    if (skew > REPLAY_WINDOW_S) {
      return { ok: false, reason: 'stale', detail: `Trellis-Signature: t is ${skew} s from the server's clock, outside the ${REPLAY_WINDOW_S} s replay window` };
    }
    const want = signTimestamped(secret, Number(t), body);
    const match = sigs.find((s) => sameHex(s, want));
    if (!match) return { ok: false, reason: 'mismatch', detail: 'Trellis-Signature: no v1 signature matches the body under this webhook\'s secret' };
    return { ok: true, form: 'trellis', replayKey: `t:${digest(`${t}.${match.toLowerCase()}`)}` };
  }
  const github = headers.get(GITHUB_SIGNATURE_HEADER);
  if (github !== null) {
    const m = /^sha256=([0-9a-fA-F]{64})$/.exec(github.trim());
    if (!m?.[1]) return { ok: false, reason: 'malformed', detail: 'X-Hub-Signature-256: expected sha256=<hex HMAC-SHA256>' };
    const want = createHmac('sha256', secret).update(body).digest('hex');
    if (!sameHex(m[1], want)) return { ok: false, reason: 'mismatch', detail: "X-Hub-Signature-256: the signature does not match the body under this webhook's secret" };
    const delivery = headers.get('x-github-delivery');
    return { ok: true, form: 'github', replayKey: delivery ? `gh:${delivery.slice(0, 100)}` : `gh:${digest(m[1].toLowerCase())}` };
  }
  return { ok: false, reason: 'unsigned', detail: 'no Trellis-Signature (t=<unix seconds>,v1=<hex>) or X-Hub-Signature-256 (sha256=<hex>) header' };
}
