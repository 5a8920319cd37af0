/**
 * The caller's address for sign-in limits and the audit trail. `X-Forwarded-For` is anyone's to
 * write, so by default it is ignored and the address is the socket's peer; an admin who runs
 * Trellis behind proxies says how far to trust it with `TRELLIS_TRUST_PROXY`, as Express's
 * `trust proxy` does (proxy-addr): a hop count, or the proxies' addresses and CIDR ranges.
 *
 * Next.js keeps a client's `X-Forwarded-For` as it came and drops the socket, so the web server
 * stamps every request with its peer under {@link PEER_HEADER} before Next sees it
 * ({@link installPeerStamp}, from instrumentation.ts), overwriting whatever a client sent there.
 */
import http from 'node:http';
import { BlockList, isIP } from 'node:net';

/** The private header carrying the socket's peer address; always overwritten, never a client's. */
export const PEER_HEADER = 'x-trellis-peer';

/** How far X-Forwarded-For is trusted: not at all, a number of proxy hops, or the proxies' addresses. */
export type ProxyTrust = { kind: 'none' } | { kind: 'hops'; hops: number } | { kind: 'addresses'; list: BlockList; source: string };

/**
 * Parses `TRELLIS_TRUST_PROXY`: unset, empty, `0` or `false` trusts no proxy; a whole number N
 * trusts the N nearest proxies; otherwise a comma-separated list of addresses and CIDR ranges
 * (`10.0.0.0/8, 127.0.0.1, ::1`) of trusted proxies.
 * @throws Error naming TRELLIS_TRUST_PROXY and the entry that is neither.
 */
export function parseProxyTrust(value: string | undefined): ProxyTrust {
  const text = value?.trim() ?? '';
  if (text === '' || text === '0' || text.toLowerCase() === 'false') return { kind: 'none' };
  if (/^\d+$/.test(text)) return { kind: 'hops', hops: Number(text) };
  const list = new BlockList();
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    const [address = '', bits] = entry.split('/');
    const family = isIP(address);
    const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
    const max = family === 6 ? 128 : 32;
    if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > max || (bits !== undefined && !/^\d+$/.test(bits))) {
      throw new Error(`TRELLIS_TRUST_PROXY: ${JSON.stringify(entry)} is not an address or CIDR range; expected a hop count or e.g. 10.0.0.0/8,127.0.0.1`);
    }
    list.addSubnet(address, prefix, family === 6 ? 'ipv6' : 'ipv4');
  }
  return { kind: 'addresses', list, source: text };
}

const header = (headers: Headers | Record<string, unknown> | undefined, name: string): string | undefined => {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const v = (headers as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v.join(', ') : undefined;
};

/** `::ffff:1.2.3.4` as `1.2.3.4`, so IPv4 clients on a dual-stack socket match IPv4 ranges and count once. */
function plain(address: string): string {
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return v4?.[1] ?? address;
}

function trusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * The client's address for a request's headers (a Fetch `Headers` or Node's header object): the
 * peer stamped by {@link installPeerStamp}, unless `trust` lets X-Forwarded-For speak. With trust,
 * the chain is the X-Forwarded-For entries followed by the peer, read from the right: `hops` skips
 * that many proxies; `addresses` skips each entry that is a trusted proxy; the first entry not
 * skipped is the client (the leftmost when every one is). Without a stamped peer (a server not
 * started through instrumentation.ts) the answer is `unknown`, one shared bucket, never a
 * client's word.
 */
export function clientAddress(headers: Headers | Record<string, unknown> | undefined, trust: ProxyTrust): string {
  const peer = header(headers, PEER_HEADER)?.trim();
  if (!peer) return 'unknown';
  if (trust.kind === 'none') return plain(peer);
  const forwarded = (header(headers, 'x-forwarded-for') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const chain = [...forwarded, peer].map(plain);
  let i = chain.length - 1;
  if (trust.kind === 'hops') i = Math.max(0, i - trust.hops);
  else while (i > 0 && trusted(trust.list, chain[i] ?? '')) i -= 1;
  return chain[i] ?? 'unknown';
}

/** Writes the socket's peer address into {@link PEER_HEADER}, replacing any value the client sent. */
export function stampPeer(req: http.IncomingMessage): void {
  req.headers[PEER_HEADER] = req.socket.remoteAddress ?? '';
}

let installed = false;

/**
 * Stamps every request any HTTP server of this process receives (Next's own among them) before
 * its handlers run. Idempotent.
 */
export function installPeerStamp(): void {
  if (installed) return;
  installed = true;
  type Emit = (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;
  const proto = http.Server.prototype as unknown as { emit: Emit };
  const emit = proto.emit;
  proto.emit = function (this: http.Server, event, ...args) {
    if (event === 'request' && args[0] instanceof http.IncomingMessage) stampPeer(args[0]);
    return emit.call(this, event, ...args);
  };
}
