/**
 * A spoofed X-Forwarded-For cannot buy fresh sign-in attempts: a real HTTP server stamped like the
 * web server (installPeerStamp) counts every guess from one socket under one address, whatever
 * each request claims, unless TRELLIS_TRUST_PROXY trusts the hop it came through.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignInLimitedError, signInGuard } from '@trellis/engine/users/sign-in-limit';
import { listAudit } from '@trellis/engine/audit/list-audit';
import { useTestDb } from '../../../engine/test/harness';
import { clientAddress, installPeerStamp, parseProxyTrust, type ProxyTrust } from './client-address';

const PREFIX = `spoof-test-${process.pid}`;
const handle = useTestDb();
let redis: Redis;
let server: http.Server;
let base = '';
let trust: ProxyTrust = parseProxyTrust(undefined);
let guard: ReturnType<typeof signInGuard>;

beforeAll(async () => {
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  installPeerStamp();
  server = http.createServer((req, res) => {
    const email = new URL(req.url ?? '/', 'http://x').searchParams.get('email') ?? '';
    guard.signIn(handle.db, { email, password: 'a-wrong-password', address: clientAddress(req.headers, trust) }).then(
      () => res.end('checked'),
      (err: unknown) => res.writeHead(err instanceof SignInLimitedError ? 429 : 500).end(err instanceof Error ? err.message : 'fault'),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.close();
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

/** 60 wrong passwords, each for its own account and claiming its own address. */
async function spoofedGuesses(run: string): Promise<string[]> {
  const answers: string[] = [];
  for (let i = 0; i < 60; i++) {
    const res = await fetch(`${base}/?email=${run}-${i}@x.test`, { headers: { 'x-forwarded-for': `203.0.113.${i}`, 'x-trellis-peer': `198.51.100.${i}` } });
    answers.push(res.status === 200 ? 'checked' : await res.text());
  }
  return answers;
}

describe('a spoofed X-Forwarded-For', () => {
  it('does not get past the per-address sign-in limit by default', async () => {
    guard = signInGuard(redis, `${PREFIX}-a`);
    trust = parseProxyTrust(undefined);
    const answers = await spoofedGuesses('a');
    expect(answers.filter((a) => a === 'checked')).toHaveLength(50);
    expect(answers.slice(50)).toEqual(Array(10).fill('too many failed sign-ins for this address; try again in 15 minutes'));
    // The audit trail records the socket's address, not what the request claimed.
    const [failed] = await listAudit(handle.db, { action: 'sign_in.failed', limit: 1 });
    expect(failed?.detail).toEqual({ address: '127.0.0.1' });
  }, 120_000);

  it('is believed only when TRELLIS_TRUST_PROXY trusts the hop it came through', async () => {
    guard = signInGuard(redis, `${PREFIX}-b`);
    trust = parseProxyTrust('127.0.0.1');
    const answers = await spoofedGuesses('b');
    expect(answers.filter((a) => a === 'checked')).toHaveLength(60);
    const [failed] = await listAudit(handle.db, { action: 'sign_in.failed', limit: 1 });
    expect(failed?.detail).toEqual({ address: '203.0.113.59' });
  }, 120_000);
});
