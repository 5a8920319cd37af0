// The egress guard shared by the engine (src/policy/egress.ts) and the code sandbox process
// (code-runner.mjs): plain JavaScript so the sandbox, which cannot load TypeScript, runs the same
// rules. Types are in egress-core.d.mts.
//
// A request may go out only when (1) its host matches the install's egress policy, and (2) every
// address the host resolves to is public, unless an admin listed that exact host as internal.
// The check runs inside the socket's own DNS lookup, so the address checked is the address
// connected to (no second lookup an attacker's DNS could answer differently), and again on every
// redirect hop, which is followed by hand.
import { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';

/** Address ranges no mesh may reach unless an admin allows the host as internal: [cidr, label]. */
const V4_RANGES = [
  ['0.0.0.0/8', 'this-network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared (carrier-grade NAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local (cloud metadata)'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
].map(([cidr, label]) => {
  const [base, bits] = cidr.split('/');
  return { base: v4ToInt(base), mask: bits === '0' ? 0 : (~0 << (32 - Number(bits))) >>> 0, label };
});

function v4ToInt(ip) {
  return ip.split('.').reduce((n, part) => ((n << 8) | Number(part)) >>> 0, 0);
}

function v6Groups(ip) {
  let text = ip.toLowerCase().replace(/^\[|\]$/g, '').split('%')[0];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = v4ToInt(v4[1]);
    text = `${text.slice(0, -v4[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const hex = (part) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const [head, rest] = text.split('::');
  const a = hex(head);
  if (rest === undefined) return a;
  const b = hex(rest);
  return [...a, ...new Array(Math.max(8 - a.length - b.length, 0)).fill(0), ...b];
}

/**
 * The label of the refused range `ip` falls in (`loopback`, `private`, `link-local (cloud
 * metadata)`, …), or undefined for a public address. IPv4-mapped and NAT64 IPv6 addresses are
 * judged by the IPv4 address they carry.
 */
export function refusedRange(ip) {
  const family = isIP(ip);
  if (family === 4) {
    const n = v4ToInt(ip);
    if (n === 0xffffffff) return 'broadcast';
    return V4_RANGES.find((r) => ((n & r.mask) >>> 0) === r.base)?.label;
  }
  if (family !== 6) return 'not an IP address';
  const g = v6Groups(ip);
  const embedded = () => `${g[6] >>> 8}.${g[6] & 0xff}.${g[7] >>> 8}.${g[7] & 0xff}`;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return refusedRange(embedded());
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return refusedRange(embedded());
  if (g.every((x) => x === 0)) return 'unspecified';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
  if (g.slice(0, 6).every((x) => x === 0)) return refusedRange(embedded()) ?? 'IPv4-compatible';
  if ((g[0] & 0xfe00) === 0xfc00) return 'private (unique local, incl. cloud metadata)';
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0] & 0xff00) === 0xff00) return 'multicast';
  return undefined;
}

/**
 * True when `host` (`name` or `name:port`, as `URL.host` gives it) matches `pattern`: `*` any
 * host, `*.example.com` any name under example.com, `name` that name on any port, `name:port`
 * exactly.
 */
export function hostMatches(host, pattern) {
  const h = host.toLowerCase();
  const p = pattern.trim().toLowerCase();
  if (p === '*') return true;
  const name = h.replace(/:\d+$/, '');
  if (p.startsWith('*.')) {
    const [suffix, port] = p.slice(1).split(/:(?=\d+$)/);
    return name.endsWith(suffix) && (port === undefined || h === `${name}:${port}`);
  }
  return p.includes(':') && !p.includes('[') ? p === h : p === name || p === h;
}

/** A request the egress policy refuses; `message` names the policy, the host and why. */
export class EgressRefusedError extends Error {
  constructor(message) {
    super(`refused by the egress policy: ${message}`);
    this.name = 'EgressRefusedError';
    this.policy = 'egress';
  }
}

/** Why `url` may not be requested at all under `policy` (scheme or host), or undefined. */
export function refusal(url, policy) {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${url.protocol} is not http: or https:`;
  if (isInternal(url, policy)) return undefined;
  if (!policy.allow.some((p) => hostMatches(url.host, p))) {
    return `${url.host} is not on the install's allowed hosts (${policy.allow.join(', ') || 'none'}); an admin adds it with \`trellis egress allow\``;
  }
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal)) {
    const range = refusedRange(literal);
    if (range) return `${url.host} is a ${range} address; an admin may allow this exact host with \`trellis egress allow ${url.host} --internal\``;
  }
  return undefined;
}

function isInternal(url, policy) {
  return (policy.internal ?? []).some((p) => {
    const entry = p.trim().toLowerCase();
    return entry.includes(':') && !entry.startsWith('[') ? entry === url.host.toLowerCase() : entry === url.hostname.toLowerCase();
  });
}

/**
 * A `lookup` for node:http that resolves `url`'s host (with the policy's resolver, `dns.lookup`
 * by default) and fails with EgressRefusedError when any address is in a refused range, unless
 * the host is listed as internal.
 */
function checkedLookup(url, policy) {
  const resolve = policy.lookup ?? ((host, cb) => dnsLookup(host, { all: true, verbatim: true }, cb));
  const internal = isInternal(url, policy);
  return (hostname, options, callback) => {
    resolve(hostname, (err, addresses) => {
      if (err) return callback(err);
      if (!addresses || addresses.length === 0) return callback(new Error(`${hostname} did not resolve`));
      for (const a of addresses) {
        const range = internal ? undefined : refusedRange(a.address);
        if (range) {
          return callback(new EgressRefusedError(`${url.host} resolves to ${a.address}, a ${range} address; an admin may allow this exact host with \`trellis egress allow ${url.host} --internal\``));
        }
      }
      if (options && options.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

const NULL_BODY = new Set([101, 204, 205, 304]);
/** Headers kept when a redirect leaves the original host: nothing that could carry a credential. */
const CROSS_HOST_SAFE = new Set(['accept', 'accept-language', 'content-type', 'user-agent']);

function requestOnce(url, method, headers, body, policy, signal) {
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(url, { method, headers, lookup: checkedLookup(url, policy), signal, agent: false });
    req.on('response', resolve);
    req.on('error', (err) => reject(err));
    if (body) req.end(body);
    else req.end();
  });
}

/**
 * `fetch` under the egress policy. `redirect: 'manual'` returns a 3xx as it is; anything else
 * follows at most 5 redirects, checking each hop like the first and dropping credential headers
 * when the host changes. Responses are not decompressed (`accept-encoding: identity` is sent).
 * @throws EgressRefusedError for a refused scheme, host or address (on any hop); the network
 *   error otherwise; an AbortError when `init.signal` aborts.
 */
export async function egressFetch(input, init, policy) {
  const first = new Request(input, init);
  let url = new URL(first.url);
  let method = first.method;
  let body = first.body ? Buffer.from(await first.arrayBuffer()) : undefined;
  const headers = Object.fromEntries(first.headers);
  headers['accept-encoding'] = 'identity';
  if (body) headers['content-length'] = String(body.length);
  const signal = init?.signal ?? undefined;
  for (let hop = 0; ; hop++) {
    const why = refusal(url, policy);
    if (why) throw new EgressRefusedError(why);
    const res = await requestOnce(url, method, headers, body, policy, signal);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (status >= 300 && status < 400 && location && (init?.redirect ?? 'follow') !== 'manual') {
      res.resume();
      if (hop >= 5) throw new Error(`more than 5 redirects from ${first.url}`);
      const next = new URL(location, url);
      if (next.host !== url.host) {
        for (const k of Object.keys(headers)) if (!CROSS_HOST_SAFE.has(k)) delete headers[k];
        headers['accept-encoding'] = 'identity';
      }
      if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        delete headers['content-length'];
        delete headers['content-type'];
      }
      url = next;
      continue;
    }
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (Array.isArray(v)) for (const one of v) out.append(k, one);
      else if (v !== undefined) out.set(k, v);
    }
    const stream = NULL_BODY.has(status) || method === 'HEAD' ? null : Readable.toWeb(res);
    if (stream === null) res.resume();
    const response = new Response(stream, { status: status < 200 ? 502 : status, statusText: res.statusMessage ?? '', headers: out });
    Object.defineProperty(response, 'url', { value: url.toString() });
    return response;
  }
}
