/**
 * The test tool server's one tool, `shout`: upper-cases its text and adds an exclamation mark; when
 * the call carries an idempotency key in `_meta` (members/agent/mcp-tools.ts), it says the key too.
 * Served over stdio by shout-server.ts and over streamable HTTP by startShoutHttp.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** A fresh MCP server with the `shout` tool. */
export function shoutServer(): McpServer {
  const server = new McpServer({ name: 'shout', version: '1.0.0' });
  server.registerTool(
    'shout',
    { description: 'Upper-cases the text and adds an exclamation mark.', inputSchema: { text: z.string() } },
    ({ text }, extra) => {
      const key = extra._meta?.['trellis/idempotency-key'];
      return { content: [{ type: 'text', text: `${text.toUpperCase()}!${typeof key === 'string' ? ` (key ${key})` : ''}` }] };
    },
  );
  return server;
}

/** Serves `shout` over stateless streamable HTTP on 127.0.0.1 (a server per request, as the SDK's stateless example does). */
export async function startShoutHttp(): Promise<{ url: string; seenHeaders(): Record<string, string | string[] | undefined>[]; close(): Promise<void> }> {
  const seen: Record<string, string | string[] | undefined>[] = [];
  const http = createServer((req, res) => {
    seen.push({ ...req.headers });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const server = shoutServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      void server
        .connect(transport)
        .then(() => transport.handleRequest(req, res, raw === '' ? undefined : (JSON.parse(raw) as unknown)));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seenHeaders: () => seen,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
