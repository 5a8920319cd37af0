/**
 * `trellis mesh publish <name> [--off] [--json]`: offer a mesh to other systems as an MCP tool and an
 * A2A agent (packages/entries), or withdraw it. From the server's shell, so recorded in the audit
 * trail as the system. Exit 0 done, 2 no such mesh or unreachable database.
 */
import { SYSTEM_ACTOR } from '@trellis/engine/audit/append';
import { MeshNotFoundError } from '@trellis/engine/errors';
import { setMeshPublished } from '@trellis/engine/meshes/publish-mesh';
import { open, settings } from '../boot';
import { CliError, EXIT } from '../fail';

/** Sets or clears a mesh's published flag and says which. */
export async function meshPublishCommand(name: string, opts: { off?: boolean; json?: boolean }): Promise<number> {
  const booted = await open(settings());
  try {
    let result: Awaited<ReturnType<typeof setMeshPublished>>;
    try {
      result = await setMeshPublished(booted.engine.db, { meshName: name, published: !opts.off, actor: SYSTEM_ACTOR });
    } catch (err) {
      if (err instanceof MeshNotFoundError) throw new CliError(err.message, EXIT.usage);
      throw err;
    }
    if (opts.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else process.stdout.write(`mesh ${result.name} is ${result.published ? 'published: an MCP tool and an A2A agent' : 'no longer published'}\n`);
    return EXIT.ok;
  } finally {
    await booted.close();
  }
}
