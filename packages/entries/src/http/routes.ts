/**
 * The HTTP bridges' routes: `POST /mcp` (the MCP server) and, per published mesh `<name>`,
 * `GET /a2a/<name>/.well-known/agent-card.json` (its agent card) and `POST /a2a/<name>` (A2A JSON-RPC).
 * Anything else is 404 with the shared error body.
 */
import type { Engine } from '@trellis/engine/engine';
import { handleA2a } from '../a2a/server';
import { handleMcp } from '../mcp/server';
import type { FetchHandler } from './node-adapter';

/** Waits and the public base URL (agent cards name it). */
export interface BridgeOptions {
  /** How long a call waits for its run to end (ms) before answering with the run id. */
  waitMs: number;
  /** The base URL other systems reach this server at, e.g. `https://trellis.example.com`. */
  publicUrl(req: Request): string;
}

/** One handler for every bridge route. */
export function bridgeHandler(engine: Engine, options: BridgeOptions): FetchHandler {
  return async (req) => {
    const { pathname } = new URL(req.url);
    if (pathname === '/mcp') return handleMcp(engine, req, { waitMs: options.waitMs, maxStatusWaitMs: Math.max(options.waitMs, 30_000) });
    const a2a = /^\/a2a\/([A-Za-z0-9][A-Za-z0-9_-]{0,62})(\/.*)?$/.exec(pathname);
    if (a2a?.[1]) return handleA2a(engine, req, { meshName: a2a[1], rest: a2a[2] ?? '/', waitMs: options.waitMs, baseUrl: `${options.publicUrl(req)}/a2a/${a2a[1]}` });
    return Response.json({ error: { code: 'not_found', message: `no bridge at ${pathname}; MCP is at /mcp, A2A agents at /a2a/<mesh>` } }, { status: 404 });
  };
}
