/** Use case: which of the tool servers a mesh lists are registered, for the validator's `tool_missing`. */
import { inArray } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { toolServers } from '@trellis/db/schema/tools';
import type { Mesh } from '@trellis/mesh/schema';
import { toolNames, type KnownTool } from '@trellis/mesh/tool-grants';

/** A {@link KnownTool} over the registry rows of the names `mesh` lists (one query; none when it lists none). */
export async function knownTools(db: Db, mesh: Mesh): Promise<KnownTool> {
  const names = toolNames(mesh);
  if (names.length === 0) return () => true;
  const rows = await db.select({ name: toolServers.name }).from(toolServers).where(inArray(toolServers.name, names));
  const registered = new Set(rows.map((r) => r.name));
  return (name) => registered.has(name);
}
