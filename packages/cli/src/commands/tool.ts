/**
 * `trellis tool add <name>` registers an MCP tool server agents may list in `tools`: a stdio
 * command (`--command`, repeated `--arg`, `--env NAME=value`, `--secret-env NAME=secret`) or a
 * streamable-HTTP endpoint (`--url`, `--secret-header Header=secret`). Secrets are named by their
 * secrets-store name, never given as values. `trellis tool list` and `trellis tool remove <name>`.
 */
import { listToolServers, putToolServer, removeToolServer, type ToolServerInput } from '@trellis/engine/tools/registry';
import { open, settings } from '../boot';
import { CliError, EXIT } from '../fail';

/** Options of `trellis tool add`. */
export interface ToolAddOptions {
  command?: string;
  arg?: string[];
  cwd?: string;
  env?: string[];
  secretEnv?: string[];
  url?: string;
  secretHeader?: string[];
  json?: boolean;
}

/** `A=b` pairs as a record. @throws CliError naming the option for a pair without `=`. */
export function pairs(option: string, values: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const at = v.indexOf('=');
    if (at <= 0) throw new CliError(`${option} ${JSON.stringify(v)}: expected NAME=value`);
    out[v.slice(0, at)] = v.slice(at + 1);
  }
  return out;
}

/** The server's config from the options. @throws CliError unless exactly one of --command and --url is given. */
export function toolConfig(opts: ToolAddOptions): ToolServerInput {
  if ((opts.command === undefined) === (opts.url === undefined)) throw new CliError('give either --command (a stdio server) or --url (a streamable-HTTP server)');
  if (opts.url !== undefined) return { transport: 'http', url: opts.url, secretHeaders: pairs('--secret-header', opts.secretHeader) };
  return {
    transport: 'stdio',
    command: opts.command as string,
    args: opts.arg ?? [],
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    env: pairs('--env', opts.env),
    secretEnv: pairs('--secret-env', opts.secretEnv),
  };
}

/** Registers (or replaces) a tool server. */
export async function toolAddCommand(name: string, opts: ToolAddOptions): Promise<number> {
  const config = toolConfig(opts);
  const booted = await open(settings());
  try {
    const saved = await putToolServer(booted.engine.db, { name, config });
    process.stdout.write(opts.json ? `${JSON.stringify(saved)}\n` : `tool server ${saved.name} registered (${saved.config.transport}); agents grant it with "tools": ["${saved.name}"]\n`);
    return EXIT.ok;
  } finally {
    await booted.close();
  }
}

/** Lists tool servers (secrets by store name only). */
export async function toolListCommand(opts: { json?: boolean }): Promise<number> {
  const booted = await open(settings());
  try {
    const items = await listToolServers(booted.engine.db);
    if (opts.json) {
      process.stdout.write(`${JSON.stringify({ tools: items })}\n`);
      return EXIT.ok;
    }
    for (const t of items) {
      const where = t.config.transport === 'stdio' ? [t.config.command, ...t.config.args].join(' ') : t.config.url;
      process.stdout.write(`${t.name}  ${t.config.transport}  ${where}\n`);
    }
    process.stdout.write(`${items.length} tool servers\n`);
    return EXIT.ok;
  } finally {
    await booted.close();
  }
}

/** Removes a tool server. */
export async function toolRemoveCommand(name: string): Promise<number> {
  const booted = await open(settings());
  try {
    if (!(await removeToolServer(booted.engine.db, name, 'cli'))) throw new CliError(`no tool server named ${name} is registered`);
    process.stdout.write(`tool server ${name} removed\n`);
    return EXIT.ok;
  } finally {
    await booted.close();
  }
}
