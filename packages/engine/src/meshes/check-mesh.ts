/**
 * Use case: the findings for a mesh file as an editor holds it right now, nothing saved. The server
 * is the authority: nested meshes are resolved against the saved ones. An unreadable file answers
 * with the reader's findings (`readable: false`), as an import would be refused.
 */
import type { Db } from '@trellis/db/client';
import type { Finding } from '@trellis/mesh/findings';
import { parseMeshFile } from '@trellis/mesh/parse';
import { validateMesh } from '@trellis/mesh/validate';
import { nestedResolver } from '../plan/definition';
import { knownTools } from '../tools/known-tools';
import { guardMeshDefinition } from '../security/definition-guard';

/**
 * Reads and validates `definition` (a JSON string or the parsed object).
 * @throws LimitExceededError over TRELLIS_MAX_MESH_BYTES or TRELLIS_MAX_JSON_DEPTH.
 */
export async function checkMesh(db: Db, definition: unknown): Promise<{ readable: boolean; findings: Finding[] }> {
  guardMeshDefinition(definition);
  const parsed = parseMeshFile(definition);
  if (!parsed.ok) return { readable: false, findings: parsed.findings };
  return { readable: true, findings: validateMesh(parsed.mesh, await nestedResolver(db, parsed.mesh), await knownTools(db, parsed.mesh)) };
}
