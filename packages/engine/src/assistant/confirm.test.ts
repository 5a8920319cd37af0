import { describe, expect, it } from 'vitest';
import { CONFIRM_TTL_MS, issueToken, redeemToken } from './confirm';

const action = { kind: 'reopen' as const, runIds: ['r2', 'r1'], version: 'latest' as const };

describe('confirmation tokens', () => {
  it('give back exactly the action they were issued for, to the same person', () => {
    const token = issueToken(action, 'u1', 1000);
    expect(redeemToken(token, 'u1', 2000)).toEqual({ kind: 'reopen', runIds: ['r1', 'r2'], version: 'latest' });
  });

  it('refuse another person, an expired token and any change to the action', () => {
    const token = issueToken(action, 'u1', 1000);
    expect(() => redeemToken(token, 'u2', 2000)).toThrow(/someone else/);
    expect(() => redeemToken(token, 'u1', 1000 + CONFIRM_TTL_MS + 1)).toThrow(/expired/);
    const [body, mac] = token.split('.');
    const changed = Buffer.from(JSON.stringify({ a: { ...action, version: 'pinned' }, u: 'u1', e: 1e15 })).toString('base64url');
    expect(body).not.toBe(changed);
    expect(() => redeemToken(`${changed}.${mac ?? ''}`, 'u1', 2000)).toThrow(/not one the assistant issued/);
    expect(() => redeemToken('garbage', 'u1', 2000)).toThrow(/not one the assistant issued/);
  });

  it('bind the kind of action: a mark-urgent token is not a re-open of the same runs', () => {
    const urgent = issueToken({ kind: 'urgent', runIds: ['r2', 'r1'] }, 'u1', 1000);
    expect(redeemToken(urgent, 'u1', 2000)).toEqual({ kind: 'urgent', runIds: ['r1', 'r2'] });
    const [, mac] = urgent.split('.');
    const asReopen = Buffer.from(JSON.stringify({ a: { kind: 'reopen', runIds: ['r1', 'r2'], version: 'pinned' }, u: 'u1', e: 1000 + CONFIRM_TTL_MS })).toString('base64url');
    expect(() => redeemToken(`${asReopen}.${mac ?? ''}`, 'u1', 2000)).toThrow(/not one the assistant issued/);
  });
});
