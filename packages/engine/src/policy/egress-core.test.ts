import { describe, expect, it } from 'vitest';
import { hostMatches, refusal, refusedRange } from '../../sandbox/egress-core.mjs';

describe('refused address ranges', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.100.100.200', 'shared (carrier-grade NAT)'],
    ['0.0.0.0', 'this-network'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local (cloud metadata)'],
    ['64:ff9b::a00:1', 'private'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'private (unique local, incl. cloud metadata)'],
  ])('%s is %s', (ip, label) => expect(refusedRange(ip)).toBe(label));

  it.each(['8.8.8.8', '172.32.0.1', '1.1.1.1', '2606:4700:4700::1111'])('%s is public', (ip) => expect(refusedRange(ip)).toBeUndefined());
});

describe('host patterns', () => {
  it.each([
    ['api.example.com', 'api.example.com', true],
    ['api.example.com:8443', 'api.example.com', true],
    ['api.example.com:8443', 'api.example.com:443', false],
    ['a.b.example.com', '*.example.com', true],
    ['example.com', '*.example.com', false],
    ['evilexample.com', '*.example.com', false],
    ['anything.test', '*', true],
  ] as const)('%s against %s: %s', (host, pattern, ok) => expect(hostMatches(host, pattern)).toBe(ok));

  it('refuses other schemes, hosts off the list and literal internal addresses, unless listed as internal', () => {
    const policy = { allow: ['*'], internal: ['127.0.0.1:4010'] };
    expect(refusal(new URL('file:///etc/passwd'), policy)).toContain('file: is not http: or https:');
    expect(refusal(new URL('http://10.0.0.5/'), policy)).toContain('10.0.0.5 is a private address');
    expect(refusal(new URL('http://127.0.0.1:4010/'), policy)).toBeUndefined();
    expect(refusal(new URL('http://127.0.0.1:4011/'), policy)).toContain('loopback');
    expect(refusal(new URL('https://api.example.com/'), { allow: ['*.example.org'] })).toContain("not on the install's allowed hosts");
  });
});
