/**
 * Tools over the Model Context Protocol: a registry of configured tool servers, granted to agents
 * by name (`member.tools`), connected for one agent call and closed after it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';
import type { AgentMember } from '@trellis/mesh/schema';
import { agentFailure } from './fail';

/**
 * One tool server: a local command speaking MCP over stdio, or a streamable HTTP endpoint.
 * A stdio server's environment is `env` plus `envFrom` on top of the few variables the MCP SDK
 * always passes on (PATH, HOME, USER, LOGNAME, SHELL, TERM); nothing else of the worker's.
 */
export const McpServerConfigSchema = z.discriminatedUnion('transport', [
  z.object({
    transport: z.literal('stdio'),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    cwd: z.string().optional(),
    /** Fixed environment values for the server (never secrets: the registry may be stored). */
    env: z.record(z.string(), z.string()).optional(),
    /** Names of variables copied from `runAgent`'s `env`, e.g. a tool's API key. */
    envFrom: z.array(z.string().min(1)).optional(),
  }),
  z.object({
    transport: z.literal('http'),
    url: z.string().url(),
    headers: z.record(z.string(), z.string()).optional(),
  }),
]);

/** Tool servers by the name agents use in `tools`. Parse with {@link McpServerRegistrySchema}. */
export const McpServerRegistrySchema = z.record(z.string().min(1), McpServerConfigSchema);

/** One configured tool server. */
export type McpServerConfig = z.infer<typeof McpServerConfigSchema>;
/** Tool servers by name. */
export type McpServerRegistry = z.infer<typeof McpServerRegistrySchema>;

/** The tools of one agent call. */
export interface ToolBox {
  /** Definitions for the chat completions `tools` parameter; empty when nothing is granted. */
  definitions: ChatCompletionFunctionTool[];
  /**
   * Runs one tool call and returns the text to feed back to the model. Problems the model can
   * fix (unknown tool, bad JSON arguments, a tool reporting `isError`) come back as text.
   * @throws StepError `timed_out` when the signal aborts, `step_code_failed` when the server fails.
   */
  call(name: string, argsJson: string): Promise<string>;
  /** Closes every connection (stops stdio servers). Never throws. */
  close(): Promise<void>;
}

interface Connection {
  server: string;
  client: Client;
}

/**
 * One tool call the model asked for, reported to `onCall`: `refused` when the name is not among the
 * tools granted to the agent (nothing is called), `error` when the tool reported a failure.
 */
export interface ToolCallEvent {
  tool: string;
  server: string | null;
  outcome: 'ok' | 'error' | 'refused';
  detail: string | null;
}

/** The `_meta` key a tool call carries the delivery's idempotency key under (MCP requests' `_meta`). */
export const IDEMPOTENCY_META_KEY = 'trellis/idempotency-key';

/**
 * Connects to the servers granted to `member`, lists their tools and names each
 * `<server>__<tool>` (letters, digits, `_`, `-`; at most 64 characters, as the chat API requires).
 * @param connectTimeoutMs how long a server may take to start and answer `initialize`.
 * @throws StepError `agent_or_model_missing` for a granted server that is not configured or whose
 *   command does not exist; `step_code_failed` (retryable) for one that does not start or answer.
 */
export async function openToolBox(
  member: AgentMember,
  registry: McpServerRegistry,
  env: Record<string, string | undefined>,
  opts: {
    signal?: AbortSignal;
    connectTimeoutMs: number;
    callTimeoutMs: number;
    idempotencyKey?: string;
    fetch?: typeof fetch;
    /** Told of every call before its result goes back to the model (e.g. to record it on the run's trail). */
    onCall?: (event: ToolCallEvent) => Promise<void>;
    /** Applied to each result's text before it is returned or reported (hides secret values). */
    redact?: (text: string) => string;
  },
): Promise<ToolBox> {
  const granted = member.tools ?? [];
  for (const server of granted) {
    if (!Object.hasOwn(registry, server)) {
      throw agentFailure(member, 'agent_or_model_missing', `tool server "${server}" granted to agent ${member.id} is not configured`, false);
    }
  }
  const settled = await Promise.allSettled(
    granted.map((server) => connect(member, server, registry[server] as McpServerConfig, env, opts)),
  );
  const connections = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const close = async () => {
    await Promise.allSettled(connections.map((c) => c.client.close()));
  };
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) {
    await close();
    throw failed.reason;
  }
  const byName = new Map<string, { conn: Connection; tool: string }>();
  const definitions: ChatCompletionFunctionTool[] = [];
  for (const conn of connections) {
    for (const tool of await listAll(conn.client, opts.signal)) {
      const name = uniqueName(`${conn.server}__${tool.name}`, byName);
      byName.set(name, { conn, tool: tool.name });
      const fn = { name, parameters: tool.inputSchema as Record<string, unknown> };
      definitions.push({ type: 'function', function: tool.description ? { ...fn, description: tool.description } : fn });
    }
  }
  const call = async (name: string, argsJson: string): Promise<string> => {
    const target = byName.get(name);
    if (!target) {
      const detail = `tool ${name} is not granted to agent ${member.id} (granted: ${granted.join(', ') || 'none'})`;
      await opts.onCall?.({ tool: name, server: null, outcome: 'refused', detail });
      return `error: refused: ${detail}`;
    }
    let args: unknown;
    try {
      args = JSON.parse(argsJson === '' ? '{}' : argsJson);
    } catch {
      return `error: the arguments for ${name} are not valid JSON`;
    }
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await target.conn.client.callTool(
        {
          name: target.tool,
          arguments: args as Record<string, unknown>,
          ...(opts.idempotencyKey ? { _meta: { [IDEMPOTENCY_META_KEY]: opts.idempotencyKey } } : {}),
        },
        undefined,
        { ...(opts.signal ? { signal: opts.signal } : {}), timeout: opts.callTimeoutMs },
      );
    } catch (err) {
      if (opts.signal?.aborted) throw agentFailure(member, 'timed_out', `ran out of time while tool ${name} was running`, true);
      const why = err instanceof Error ? err.message : String(err);
      throw agentFailure(member, 'step_code_failed', `tool ${target.tool} on server "${target.conn.server}" failed: ${why}`, true);
    }
    const text = opts.redact ? opts.redact(resultText(result)) : resultText(result);
    const failed = result.isError === true;
    await opts.onCall?.({ tool: name, server: target.conn.server, outcome: failed ? 'error' : 'ok', detail: failed ? text.slice(0, 500) : null });
    return text;
  };
  return { definitions, call, close };
}

async function connect(
  member: AgentMember,
  server: string,
  config: McpServerConfig,
  env: Record<string, string | undefined>,
  opts: { signal?: AbortSignal; connectTimeoutMs: number; fetch?: typeof fetch },
): Promise<Connection> {
  const client = new Client({ name: 'trellis', version: '0.1.0' });
  let stderr = '';
  let transport: StdioClientTransport | StreamableHTTPClientTransport;
  if (config.transport === 'stdio') {
    const picked: Record<string, string> = {};
    for (const k of config.envFrom ?? []) {
      const v = env[k];
      if (v !== undefined) picked[k] = v;
    }
    transport = new StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      env: { ...config.env, ...picked },
      stderr: 'pipe',
      ...(config.cwd ? { cwd: config.cwd } : {}),
    });
    // Keep the tail of the server's stderr: it usually says why a server did not start.
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-500);
    });
  } else {
    transport = new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers ?? {} },
      // The engine's fetch applies the install's egress policy (policy/egress.ts) to HTTP tool servers too.
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
    });
  }
  try {
    await client.connect(transport, { ...(opts.signal ? { signal: opts.signal } : {}), timeout: opts.connectTimeoutMs });
  } catch (err) {
    await client.close().catch(() => undefined);
    const code = (err as NodeJS.ErrnoException).code;
    const why = err instanceof Error ? err.message : String(err);
    const said = stderr.trim() === '' ? '' : `; it said: ${stderr.trim()}`;
    const detail = `tool server "${server}" granted to agent ${member.id} did not start: ${why}${said}`;
    if (opts.signal?.aborted) throw agentFailure(member, 'timed_out', detail, true);
    if (code === 'ENOENT') throw agentFailure(member, 'agent_or_model_missing', detail, false);
    throw agentFailure(member, 'step_code_failed', detail, true);
  }
  return { server, client };
}

async function listAll(client: Client, signal?: AbortSignal) {
  const tools = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, signal ? { signal } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

function uniqueName(wanted: string, taken: ReadonlyMap<string, unknown>): string {
  const base = wanted.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base.slice(0, 60)}_${i}`;
  return name;
}

/** Text parts joined by newlines; structured content as JSON; other media named, not inlined. */
function resultText(result: Awaited<ReturnType<Client['callTool']>>): string {
  const parts = Array.isArray(result.content) ? (result.content as { type: string; text?: string }[]) : [];
  const texts = parts.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : `[${p.type} omitted]`));
  let text = texts.join('\n');
  if (text === '' && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (text === '' && 'toolResult' in result) text = JSON.stringify(result.toolResult);
  return result.isError === true ? `error: ${text}` : text;
}
