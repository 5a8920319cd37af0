import { describe, expect, it } from 'vitest';
import { githubSignatureHeader, REPLAY_WINDOW_S, signatureHeader, signTimestamped, verifySignature } from './signature';

const SECRET = 'whsec_test';
const BODY = new TextEncoder().encode('{"claim":42}');
const NOW = 1_800_000_000_000;

function check(headers: Record<string, string>, body = BODY, now = NOW) {
  return verifySignature(new Headers(headers), body, SECRET, now);
}

describe('webhook signatures', () => {
  it('accepts the Trellis form within the window, either side, and a rotated key list', () => {
    expect(check({ 'trellis-signature': signatureHeader(SECRET, BODY, NOW) })).toMatchObject({ ok: true, form: 'trellis' });
    const early = Math.floor(NOW / 1000) - REPLAY_WINDOW_S;
    expect(check({ 'trellis-signature': `t=${early},v1=${signTimestamped(SECRET, early, BODY)}` }).ok).toBe(true);
    const late = Math.floor(NOW / 1000) + REPLAY_WINDOW_S;
    expect(check({ 'trellis-signature': `t=${late},v1=${signTimestamped('old', late, BODY)},v1=${signTimestamped(SECRET, late, BODY)}` }).ok).toBe(true);
  });

  it('refuses a signature one second outside the window, naming it', () => {
    const t = Math.floor(NOW / 1000) - REPLAY_WINDOW_S - 1;
    expect(check({ 'trellis-signature': `t=${t},v1=${signTimestamped(SECRET, t, BODY)}` })).toEqual({
      ok: false,
      reason: 'stale',
      detail: `Trellis-Signature: t is ${REPLAY_WINDOW_S + 1} s from the server's clock, outside the ${REPLAY_WINDOW_S} s replay window`,
    });
  });

  it.each([
    ['another secret', { 'trellis-signature': signatureHeader('other', BODY, NOW) }, 'mismatch'],
    ['a changed body', { 'trellis-signature': signatureHeader(SECRET, '{"claim":43}', NOW) }, 'mismatch'],
    ['a timestamp moved', { 'trellis-signature': signatureHeader(SECRET, BODY, NOW).replace(/t=(\d+)/, (_m, t: string) => `t=${Number(t) + 1}`) }, 'mismatch'],
    ['no v1', { 'trellis-signature': `t=${Math.floor(NOW / 1000)}` }, 'malformed'],
    ['no t', { 'trellis-signature': `v1=${'a'.repeat(64)}` }, 'malformed'],
    ['short hex', { 'trellis-signature': `t=${Math.floor(NOW / 1000)},v1=abc` }, 'mismatch'],
    ['no header', {}, 'unsigned'],
    ['GitHub form, other secret', { 'x-hub-signature-256': githubSignatureHeader('other', BODY) }, 'mismatch'],
    ['GitHub form, no prefix', { 'x-hub-signature-256': githubSignatureHeader(SECRET, BODY).slice(7) }, 'malformed'],
  ])('refuses %s', (_name, headers, reason) => {
    expect(check(headers)).toMatchObject({ ok: false, reason });
  });

  it("accepts GitHub's X-Hub-Signature-256, keyed for replays by its delivery id", () => {
    const sig = githubSignatureHeader(SECRET, BODY);
    expect(check({ 'x-hub-signature-256': sig, 'x-github-delivery': 'd-1' })).toEqual({ ok: true, form: 'github', replayKey: 'gh:d-1' });
    expect(check({ 'x-hub-signature-256': sig.toUpperCase().replace('SHA256', 'sha256') }).ok).toBe(true);
  });

  it('gives a replay of the same signed request the same key, and another request another', () => {
    const header = signatureHeader(SECRET, BODY, NOW);
    const a = check({ 'trellis-signature': header });
    const b = check({ 'trellis-signature': header }, BODY, NOW + 60_000);
    const c = check({ 'trellis-signature': signatureHeader(SECRET, BODY, NOW + 1000) });
    expect(a.ok && b.ok && c.ok).toBe(true);
    if (a.ok && b.ok && c.ok) {
      expect(a.replayKey).toBe(b.replayKey);
      expect(a.replayKey).not.toBe(c.replayKey);
    }
  });
});
