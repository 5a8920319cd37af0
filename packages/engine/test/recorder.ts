/**
 * A local HTTP server for tests of outside effects: it records every request (path, Idempotency-Key
 * header, when it arrived, and when its connection closed before an answer, i.e. the caller gave
 * up), and answers each path after the delay and with the status a test sets.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it; times are epoch ms. */
export interface Seen {
  path: string;
  key: string | undefined;
  at: number;
  /** When the caller closed the connection before the answer was sent (aborted), if it did. */
  abortedAt?: number;
  answeredAt?: number;
}

/** How a path answers: after `delayMs` (default 0) with `status` (default 200) and a JSON body. */
export interface Answer {
  delayMs?: number;
  status?: number;
}

/** A running recorder. */
export interface Recorder {
  /** `host:port`, for `allowHosts`. */
  host: string;
  url: string;
  seen: Seen[];
  /** Sets how requests whose path starts with `prefix` answer. */
  on(prefix: string, answer: Answer): void;
  /** Resolves when `n` requests (whose path starts with `prefix`, when given) have arrived. */
  waitFor(n: number, prefix?: string, timeoutMs?: number): Promise<Seen[]>;
  close(): Promise<void>;
}

/** Starts a recorder on 127.0.0.1 with a free port. */
export async function startRecorder(): Promise<Recorder> {
  const answers: [string, Answer][] = [];
  const seen: Seen[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    const header = req.headers['idempotency-key'];
    const entry: Seen = { path, key: typeof header === 'string' ? header : undefined, at: Date.now() };
    seen.push(entry);
    for (const w of waiters) w();
    req.resume();
    const answer = answers.filter(([p]) => path.startsWith(p)).at(-1)?.[1] ?? {};
    const timer = setTimeout(() => {
      entry.answeredAt = Date.now();
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify({ path }));
    }, answer.delayMs ?? 0);
    res.on('close', () => {
      if (entry.answeredAt === undefined) {
        entry.abortedAt = Date.now();
        clearTimeout(timer);
      }
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const host = `127.0.0.1:${port}`;
  return {
    host,
    url: `http://${host}`,
    seen,
    on: (prefix, answer) => answers.push([prefix, answer]),
    waitFor: (n, prefix, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const matching = () => seen.filter((s) => prefix === undefined || s.path.startsWith(prefix));
        const check = () => {
          const got = matching();
          if (got.length < n) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(got);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${matching().length} of ${n} requests to ${prefix ?? '/'} arrived in ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Resolves when `check` returns a value other than undefined, polling every `everyMs`. */
export async function until<T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 30_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await check();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A one-member mesh (`name`) whose head workflow makes one POST to `path` on the recorder (timeout 90 s). */
export function oneCallMesh(rec: Recorder, path: string, name = 'one-call'): unknown {
  return {
    format: 'trellis.mesh/v1',
    name,
    members: [{ id: 'call', kind: 'workflow', head: true, steps: [{ type: 'http', method: 'POST', url: `${rec.url}${path}`, allowHosts: [rec.host], timeoutMs: 90_000 }] }],
    channels: [],
  };
}
