/**
 * `trellis service add <name>` registers an outside service and prints its API key once (only a
 * hash is stored); `trellis service list` and `trellis service remove <name>` manage them.
 */
import { addService, listServices, removeService } from '@trellis/engine/services/registry';
import { IdSchema } from '@trellis/mesh/schema';
import { open, settings } from '../boot';
import { CliError, EXIT } from '../fail';

/** Registers a service and prints the key. */
export async function serviceAddCommand(name: string, opts: { json?: boolean }): Promise<number> {
  if (!IdSchema.safeParse(name).success) throw new CliError(`service name ${JSON.stringify(name)}: expected 1-63 letters, digits, "-" or "_"`);
  const booted = await open(settings());
  try {
    const { apiKey } = await addService(booted.engine.db, { name });
    if (opts.json) {
      process.stdout.write(`${JSON.stringify({ name, apiKey })}\n`);
    } else {
      process.stdout.write(`service ${name} registered. Its API key (shown only now; keep it secret):\n${apiKey}\n`);
      process.stdout.write(`The service sends it as "Authorization: Bearer <key>" to POST /api/v1/services/${name}/claim\n`);
    }
    return EXIT.ok;
  } finally {
    await booted.close();
  }
}

/** Lists registered services (never their keys). */
export async function serviceListCommand(opts: { json?: boolean }): Promise<number> {
  const booted = await open(settings());
  try {
    const items = await listServices(booted.engine.db);
    if (opts.json) {
      process.stdout.write(`${JSON.stringify({ services: items })}\n`);
      return EXIT.ok;
    }
    for (const s of items) process.stdout.write(`${s.name}  key ${s.keyPrefix}…  added ${s.createdAt.toISOString()}\n`);
    process.stdout.write(`${items.length} services\n`);
    return EXIT.ok;
  } finally {
    await booted.close();
  }
}

/** Removes a service; its key stops working at once. */
export async function serviceRemoveCommand(name: string): Promise<number> {
  const booted = await open(settings());
  try {
    if (!(await removeService(booted.engine.db, name))) throw new CliError(`no service named ${name} is registered`);
    process.stdout.write(`service ${name} removed\n`);
    return EXIT.ok;
  } finally {
    await booted.close();
  }
}
