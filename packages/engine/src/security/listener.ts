/**
 * A local HTTP listener standing in for a host an attacker controls (or for Trellis's own API
 * on loopback) in the security tests: it records every request with its headers and body. A
 * request to `/redirect?to=<url>` is answered 307 to that URL; `/echo` answers the request's
 * headers as JSON; a path under a prefix given to `redirect()` is answered 307 to that target;
 * anything else answers `{ "ok": true }`.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the listener saw it. */
export interface Heard {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A running listener on 127.0.0.1. */
export interface Listener {
  /** `127.0.0.1:<port>`. */
  host: string;
  url: string;
  heard: Heard[];
  /** True when any request carried `text` in a header or its body. */
  sawText(text: string): boolean;
  /** Answers every path starting with `prefix` with a 307 to `to`. */
  redirect(prefix: string, to: string): void;
  close(): Promise<void>;
}

/** Starts a listener on a free port of 127.0.0.1. */
export async function startListener(): Promise<Listener> {
  const heard: Heard[] = [];
  const redirects: [string, string][] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      heard.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const url = new URL(path, 'http://x');
      const to = url.pathname === '/redirect' ? url.searchParams.get('to') : redirects.find(([p]) => path.startsWith(p))?.[1];
      if (to) return void res.writeHead(307, { location: to }).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(url.pathname === '/echo' ? { headers: req.headers } : { ok: true }));
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const host = `127.0.0.1:${port}`;
  return {
    host,
    url: `http://${host}`,
    heard,
    redirect: (prefix, to) => void redirects.push([prefix, to]),
    sawText: (text) => heard.some((h) => h.body.includes(text) || JSON.stringify(h.headers).includes(text)),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
