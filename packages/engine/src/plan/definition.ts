/** Reading stored mesh versions back, and comparing definitions. */
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { meshes, meshVersions } from '@trellis/db/schema/meshes';
import { MeshSchema, type Mesh } from '@trellis/mesh/schema';

/**
 * Parses a stored definition (zod on read as well as on write).
 * @throws Error when the stored JSON no longer matches the schema (a bug or a hand edit).
 */
export function readDefinition(json: unknown): Mesh {
  return MeshSchema.parse(json);
}

/** JSON with object keys sorted, so two equal definitions always give the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Loads one version's definition, or undefined. */
export async function loadVersion(db: Db, meshId: string, version: number): Promise<Mesh | undefined> {
  const [row] = await db
    .select({ definition: meshVersions.definition })
    .from(meshVersions)
    .where(and(eq(meshVersions.meshId, meshId), eq(meshVersions.version, version)));
  return row ? readDefinition(row.definition) : undefined;
}

/**
 * Builds the synchronous resolver `validateMesh` wants: the latest version of every mesh nested
 * (transitively) under `root`, loaded up front. Stops after 32 levels; deeper nesting is a cycle
 * or absurd and the validator reports what it finds.
 */
export async function nestedResolver(db: Db, root: Mesh): Promise<(name: string) => Mesh | undefined> {
  const known = new Map<string, Mesh>([[root.name, root]]);
  let wanted = nestedNames(root).filter((n) => !known.has(n));
  for (let level = 0; level < 32 && wanted.length > 0; level++) {
    const found = await db
      .select({ name: meshes.name, definition: meshVersions.definition })
      .from(meshes)
      .innerJoin(
        meshVersions,
        and(eq(meshVersions.meshId, meshes.id), eq(meshVersions.version, meshes.latestVersion)),
      )
      .where(inArray(meshes.name, wanted));
    const next: string[] = [];
    for (const row of found) {
      const mesh = readDefinition(row.definition);
      known.set(row.name, mesh);
      next.push(...nestedNames(mesh));
    }
    wanted = [...new Set(next)].filter((n) => !known.has(n));
  }
  return (name) => known.get(name);
}

function nestedNames(mesh: Mesh): string[] {
  return mesh.members.flatMap((m) => (m.kind === 'mesh' ? [m.mesh] : []));
}
