/**
 * `trellis run` on a mesh file that nests other meshes: a nested mesh not saved yet is imported from
 * `<name>.json` beside the file (the same place `validate` looks), depth first. A nested mesh that
 * is saved already is left alone, so a version edited on the canvas is never replaced from disk.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Db } from '@trellis/db/client';
import { getMesh } from '@trellis/engine/meshes/get-mesh';
import { saveMesh } from '@trellis/engine/meshes/save-mesh';
import { parseMeshFile } from '@trellis/mesh/parse';
import type { Mesh } from '@trellis/mesh/schema';

/**
 * Saves the nested meshes `mesh` names (and theirs) that the database lacks, from files beside
 * `meshFile`. A missing or refused file is skipped: validation then reports `nested_mesh_missing`.
 * @returns the files imported, in order.
 */
export async function importNestedFiles(db: Db, meshFile: string, mesh: Mesh, seen = new Set<string>([mesh.name])): Promise<string[]> {
  const imported: string[] = [];
  for (const member of mesh.members) {
    if (member.kind !== 'mesh' || seen.has(member.mesh)) continue;
    seen.add(member.mesh);
    if (await getMesh(db, { name: member.mesh })) continue;
    const file = join(dirname(meshFile), `${member.mesh}.json`);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      continue;
    }
    const parsed = parseMeshFile(text);
    if (!parsed.ok || parsed.mesh.name !== member.mesh) continue;
    imported.push(...(await importNestedFiles(db, file, parsed.mesh, seen)));
    if ((await saveMesh(db, { definition: text, imported: true })).ok) imported.push(file);
  }
  return imported;
}
