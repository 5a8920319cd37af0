/**
 * node:http ↔ Web Fetch: the bridges answer `Request → Response` (so the web app can mount them
 * too); this serves such a handler on a Node HTTP server, reading at most `maxBodyBytes`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';

/** A Fetch-style handler. */
export type FetchHandler = (req: Request) => Promise<Response>;

async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | 'too_large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return 'too_large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function toRequest(req: IncomingMessage, base: string, maxBytes: number): Promise<Request | 'too_large'> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const method = req.method ?? 'GET';
  const body = method === 'GET' || method === 'HEAD' ? undefined : await readBody(req, maxBytes);
  if (body === 'too_large') return body;
  return new Request(new URL(req.url ?? '/', base), { method, headers, ...(body ? { body } : {}) });
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.setHeader(name, value));
  if (!response.body) {
    res.end();
    return;
  }
  await new Promise<void>((resolve, reject) => {
    Readable.fromWeb(response.body as NodeReadableStream).on('error', reject).pipe(res).on('finish', resolve).on('error', reject);
  });
}

/**
 * Listens on `host:port` (0: any free port) and serves `handler`.
 * @returns the server and the port it got. @throws the listen error (a port in use).
 */
export async function serveFetch(handler: FetchHandler, options: { host: string; port: number; maxBodyBytes: number }): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    void (async () => {
      const request = await toRequest(req, `http://${req.headers.host ?? options.host}`, options.maxBodyBytes);
      if (request === 'too_large') {
        await send(res, Response.json({ error: { code: 'too_large', message: `the request body is larger than ${options.maxBodyBytes} bytes` } }, { status: 413 }));
        return;
      }
      await send(res, await handler(request));
    })().catch(() => {
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : options.port };
}
