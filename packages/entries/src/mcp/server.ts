/**
 * The MCP server surface (Streamable HTTP, MCP spec 2025-06-18, the official
 * `@modelcontextprotocol/sdk`): published meshes are tools. Stateless: each POST gets a fresh
 * server and transport (no session to lose when a process restarts), answered as JSON.
 *
 * - Auth: `Authorization: Bearer trl_…` (a `read` token lists tools and reads runs; calling a mesh
 *   tool needs `run`). No or a bad token is HTTP 401 with `{ error: { code, message } }`.
 * - A mesh tool starts a run through the shared entry use case and waits up to `waitMs` for it to
 *   end: the answer (`structuredContent`) is the run's output then, else `{ runId, status }` for
 *   `trellis_run_status`. `_meta["trellis/idempotency-key"]` on the call keeps a retried call to one run.
 * - A refusal (bad arguments, an input the engine refuses, a mesh with findings) is a tool result
 *   with `isError: true` and the same `{ error: { code, message } }` as `structuredContent`.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Engine } from '@trellis/engine/engine';
import { BadInputError, MeshNotFoundError } from '@trellis/engine/errors';
import { listPublished } from '@trellis/engine/meshes/list-published';
import { bearerOf, tokenUser } from '../auth';
import { entryAnswer, entryError, startBridgeRun } from '../entry-run';
import { runInputOf } from '../input';
import { meshTool, STATUS_TOOL, statusTool } from './tools';

/** How long a call waits for its run (ms), and the longest wait the status tool allows (ms). */
export interface McpOptions {
  waitMs: number;
  maxStatusWaitMs: number;
  /** The server's version as it introduces itself. */
  version?: string;
}

/** The key a caller sets in a tool call's `_meta` to make a retried call reuse its run. */
export const IDEMPOTENCY_META = 'trellis/idempotency-key';

function result(value: Record<string, unknown>, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value, ...(isError ? { isError: true } : {}) };
}

function buildServer(engine: Engine, token: string, options: McpOptions): Server {
  const server = new Server({ name: 'trellis', version: options.version ?? '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const meshes = (await listPublished(engine.db)).filter((m) => m.name !== STATUS_TOOL);
    return { tools: [statusTool(Math.floor(options.maxStatusWaitMs / 1000)), ...meshes.map(meshTool)] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args, _meta: meta } = request.params;
    try {
      if (name === STATUS_TOOL) {
        await tokenUser(engine.db, token, 'read', 'the run status tool');
        const { runId, waitMs } = statusArgs(args, options.maxStatusWaitMs);
        return result({ ...(await entryAnswer(engine, runId, waitMs)) });
      }
      const actor = await tokenUser(engine.db, token, 'run', `the tool ${name}`);
      const [mesh] = await listPublished(engine.db, name);
      if (!mesh) throw new MeshNotFoundError(`${name} (no published mesh has this name; tools/list names them)`);
      const key = meta?.[IDEMPOTENCY_META];
      if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > 200)) {
        throw new BadInputError(`_meta.${IDEMPOTENCY_META}: expected a string of 1-200 characters`);
      }
      const started = await startBridgeRun(engine, { meshName: mesh.name, input: runInputOf(args, 'arguments'), entry: 'mcp', actor, ...(key ? { idempotencyKey: `mcp:${actor.id}:${key}` } : {}) });
      return result({ ...(await entryAnswer(engine, started.runId, options.waitMs)), reused: started.reused });
    } catch (err) {
      return result({ ...entryError(err).body }, true);
    }
  });
  return server;
}

function statusArgs(args: Record<string, unknown> | undefined, maxWaitMs: number): { runId: string; waitMs: number } {
  const runId = args?.runId;
  if (typeof runId !== 'string' || runId.length === 0) throw new BadInputError('arguments.runId: expected the run id a mesh tool answered');
  const wait = args?.waitSeconds ?? 0;
  if (typeof wait !== 'number' || !Number.isFinite(wait) || wait < 0) throw new BadInputError('arguments.waitSeconds: expected a number of seconds, 0 or more');
  return { runId, waitMs: Math.min(wait * 1000, maxWaitMs) };
}

/**
 * Answers one HTTP request to the MCP endpoint.
 * @returns 401/403 JSON `{ error }` for a missing or refused token; otherwise the transport's answer
 *   (405 for GET/DELETE: a stateless server has no stream to resume or session to end).
 */
export async function handleMcp(engine: Engine, req: Request, options: McpOptions): Promise<Response> {
  const token = bearerOf(req);
  try {
    await tokenUser(engine.db, token, 'read', 'the MCP server');
  } catch (err) {
    const { status, body } = entryError(err);
    return Response.json(body, { status, headers: status === 401 ? { 'www-authenticate': 'Bearer realm="trellis"' } : {} });
  }
  if (req.method !== 'POST') {
    return Response.json({ error: { code: 'method_not_allowed', message: `the MCP endpoint is stateless and answers POST, not ${req.method}` } }, { status: 405, headers: { allow: 'POST' } });
  }
  const server = buildServer(engine, token ?? '', options);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(req);
  } finally {
    await server.close();
  }
}
