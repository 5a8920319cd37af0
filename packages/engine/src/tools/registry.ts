/**
 * Use cases: the admin-managed registry of MCP tool servers. A server is registered by name with
 * how to reach it: a stdio command (the admin's, never a mesh's) with arguments and environment,
 * or a streamable-HTTP URL. Secret values are named by their secrets-store name and revealed only
 * when a server is started for an agent (tools/secrets.ts). Agents grant themselves nothing but
 * names: `tools: ["search"]`.
 */
import { eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@trellis/db/client';
import { toolServers } from '@trellis/db/schema/tools';
import { EnvNameSchema, IdSchema } from '@trellis/mesh/schema';
import type { McpServerRegistry } from '../members/agent/mcp-tools';
import { appendAuditBy } from '../audit/append';
import { BadInputError } from '../kernel/errors';
import { revealAll, type SecretResolver } from './secrets';

const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name: letters, digits and "_"');
const HeaderName = z.string().regex(/^[A-Za-z0-9-]+$/, 'a header name: letters, digits and "-"');

/** How to reach one tool server, as stored. Parsed with zod on write and on read. */
export const ToolServerConfigSchema = z.discriminatedUnion('transport', [
  z
    .object({
      transport: z.literal('stdio'),
      /** The program to start: an absolute path or a name on the worker's PATH. */
      command: z.string().trim().min(1),
      args: z.array(z.string()).default([]),
      cwd: z.string().min(1).optional(),
      /** Plain, non-secret values. */
      env: z.record(EnvName, z.string()).default({}),
      /**
       * Variable → secrets-store name; the value is revealed when the server starts, and only when
       * the secret lists this server as `tool:<name>` among its targets.
       */
      secretEnv: z.record(EnvName, EnvNameSchema).default({}),
    })
    .strict(),
  z
    .object({
      transport: z.literal('http'),
      url: z.url({ protocol: /^https?$/ }),
      /** Header → secrets-store name (e.g. `Authorization` → `search-token`). */
      secretHeaders: z.record(HeaderName, EnvNameSchema).default({}),
    })
    .strict(),
]);

/** How to reach one tool server. */
export type ToolServerConfig = z.infer<typeof ToolServerConfigSchema>;
/** What an admin sends to register a server (defaults not yet applied). */
export type ToolServerInput = z.input<typeof ToolServerConfigSchema>;

/** A registered server as listed: its config names secrets, never holds them. */
export interface ToolServerView {
  name: string;
  config: ToolServerConfig;
  createdBy: string | null;
  updatedAt: Date;
}

/**
 * Registers a tool server, or replaces the one of that name.
 * @throws BadInputError naming the field (`name`, `config.command`, `config.url`, …).
 */
export async function putToolServer(db: Db, input: { name: string; config: unknown; userId?: string }): Promise<ToolServerView> {
  const name = IdSchema.safeParse(input.name);
  if (!name.success) throw new BadInputError(`name ${JSON.stringify(input.name)}: expected 1-63 letters, digits, "-" or "_"`);
  const parsed = ToolServerConfigSchema.safeParse(input.config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BadInputError(`config.${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'unreadable'}`);
  }
  const row = { name: name.data, transport: parsed.data.transport, config: parsed.data, createdBy: input.userId ?? null, updatedAt: new Date() };
  await db.transaction(async (tx) => {
    await tx
      .insert(toolServers)
      .values(row)
      .onConflictDoUpdate({ target: toolServers.name, set: { transport: row.transport, config: row.config, updatedAt: row.updatedAt } });
    // The settings name secrets by store name only, so they are safe to keep.
    await appendAuditBy(tx, input.userId, { action: 'tool.put', target: row.name, detail: { config: parsed.data } });
  });
  return { name: row.name, config: parsed.data, createdBy: row.createdBy, updatedAt: row.updatedAt };
}

/** Registered tool servers by name. */
export async function listToolServers(db: Db): Promise<ToolServerView[]> {
  const rows = await db.select().from(toolServers).orderBy(toolServers.name);
  return rows.map((r) => ({ name: r.name, config: ToolServerConfigSchema.parse(r.config), createdBy: r.createdBy, updatedAt: r.updatedAt }));
}

/**
 * Removes a tool server; agents that list it then fail with `agent_or_model_missing`. `by` (a user
 * id) is recorded in the audit trail. @returns false when none had the name.
 */
export async function removeToolServer(db: Db, name: string, by?: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const gone = await tx.delete(toolServers).where(eq(toolServers.name, name)).returning({ name: toolServers.name });
    if (gone.length > 0) await appendAuditBy(tx, by, { action: 'tool.remove', target: name });
    return gone.length > 0;
  });
}

/**
 * The launch settings of the servers named in `names` that are registered, secrets revealed, in
 * the form the MCP client takes (agents/mcp-tools.ts). Unregistered names are left out, so the
 * agent fails naming the missing server. A stdio server's environment is exactly its `env` and
 * revealed `secretEnv`: nothing of the worker's own environment beyond what the MCP SDK passes on.
 * @throws StepError `agent_or_model_missing` (for `member`) when a secret is refused.
 */
export async function loadToolRegistry(db: Db, names: readonly string[], secrets: SecretResolver, member: string): Promise<McpServerRegistry> {
  if (names.length === 0) return {};
  const rows = await db.select().from(toolServers).where(inArray(toolServers.name, [...names]));
  const registry: McpServerRegistry = {};
  for (const row of rows) {
    const config = ToolServerConfigSchema.parse(row.config);
    const purpose = `tool server "${row.name}"`;
    if (config.transport === 'stdio') {
      const revealed = await revealAll(secrets, config.secretEnv, { purpose, tool: row.name }, member);
      registry[row.name] = {
        transport: 'stdio',
        command: config.command,
        args: config.args,
        ...(config.cwd ? { cwd: config.cwd } : {}),
        env: { ...config.env, ...revealed },
      };
    } else {
      const headers = await revealAll(secrets, config.secretHeaders, { purpose, host: new URL(config.url).hostname }, member);
      registry[row.name] = { transport: 'http', url: config.url, headers };
    }
  }
  return registry;
}
