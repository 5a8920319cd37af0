/** Which address a request is counted under: the socket's peer unless TRELLIS_TRUST_PROXY says otherwise. */
import { describe, expect, it } from 'vitest';
import { clientAddress, parseProxyTrust, PEER_HEADER } from './client-address';

const req = (peer: string | undefined, forwarded?: string) => ({ ...(peer !== undefined ? { [PEER_HEADER]: peer } : {}), ...(forwarded ? { 'x-forwarded-for': forwarded } : {}) });

describe('client address', () => {
  it('ignores X-Forwarded-For by default', () => {
    const none = parseProxyTrust(undefined);
    expect(clientAddress(req('10.1.1.1', '203.0.113.9'), none)).toBe('10.1.1.1');
    expect(clientAddress(req('::ffff:127.0.0.1', '1.2.3.4, 5.6.7.8'), parseProxyTrust('false'))).toBe('127.0.0.1');
    expect(clientAddress(new Headers({ [PEER_HEADER]: '::1', 'x-forwarded-for': '9.9.9.9' }), parseProxyTrust('0'))).toBe('::1');
    // No stamped peer: one shared bucket, never the client's word.
    expect(clientAddress(req(undefined, '203.0.113.9'), none)).toBe('unknown');
  });

  it('trusts as many proxy hops as configured, from the right', () => {
    expect(clientAddress(req('10.0.0.2', '198.51.100.7'), parseProxyTrust('1'))).toBe('198.51.100.7');
    expect(clientAddress(req('10.0.0.2', 'spoofed, 198.51.100.7, 10.0.0.1'), parseProxyTrust('2'))).toBe('198.51.100.7');
    // More hops than entries: the leftmost.
    expect(clientAddress(req('10.0.0.2', '198.51.100.7'), parseProxyTrust('5'))).toBe('198.51.100.7');
    expect(clientAddress(req('10.0.0.2'), parseProxyTrust('1'))).toBe('10.0.0.2');
  });

  it('skips only trusted proxies by address or CIDR, so a spoofed entry left of a client is never reached', () => {
    const trust = parseProxyTrust('10.0.0.0/8, 127.0.0.1, fd00::/8');
    expect(clientAddress(req('127.0.0.1', 'spoofed-by-client, 198.51.100.7, 10.2.3.4'), trust)).toBe('198.51.100.7');
    expect(clientAddress(req('::ffff:10.9.9.9', '203.0.113.5'), trust)).toBe('203.0.113.5');
    expect(clientAddress(req('fd00::1', '2001:db8::5'), trust)).toBe('2001:db8::5');
    // The peer is not a trusted proxy: its header means nothing.
    expect(clientAddress(req('198.51.100.1', '10.0.0.1'), trust)).toBe('198.51.100.1');
  });

  it('names the setting and the entry it cannot read', () => {
    expect(() => parseProxyTrust('10.0.0.0/33')).toThrow('TRELLIS_TRUST_PROXY: "10.0.0.0/33" is not an address or CIDR range; expected a hop count or e.g. 10.0.0.0/8,127.0.0.1');
    expect(() => parseProxyTrust('proxy.local')).toThrow('TRELLIS_TRUST_PROXY: "proxy.local" is not an address or CIDR range');
    expect(() => parseProxyTrust('10.0.0.0/x')).toThrow('"10.0.0.0/x" is not an address');
  });
});
