/** Use case: save (or import) a mesh file as a new version. */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { meshes, meshVersions } from '@trellis/db/schema/meshes';
import type { Finding } from '@trellis/mesh/findings';
import { parseMeshFile } from '@trellis/mesh/parse';
import type { Mesh } from '@trellis/mesh/schema';
import { validateMesh } from '@trellis/mesh/validate';
import { appendAuditBy, type AuditWriter } from '../audit/append';
import { uuidv7 } from '../kernel/ids';
import { guardMeshDefinition } from '../security/definition-guard';
import { canonicalJson, loadVersion, nestedResolver } from '../plan/definition';
import { knownTools } from '../tools/known-tools';

/** What to save. */
export interface SaveMeshInput {
  /** The mesh to save into; when absent it is looked up by `name`, then by the file's own name. */
  meshId?: string;
  name?: string;
  /** The mesh file: a JSON string or the parsed object. */
  definition: unknown;
  /** The version the editor started from; an older one than the latest is refused as a conflict. */
  baseVersion?: number;
  userId?: string;
  /** Recorded as `mesh.import` rather than `mesh.save` in the audit trail. */
  imported?: boolean;
}

/** The outcome: saved (maybe unchanged), or refused with findings. */
export type SaveMeshResult =
  | { ok: true; meshId: string; name: string; version: number; created: boolean; unchanged: boolean; findings: Finding[] }
  | { ok: false; reason: 'invalid' | 'conflict'; findings: Finding[]; latestVersion?: number; message: string };

/**
 * Saves a mesh file. A file that cannot be read (not JSON, unknown format, schema errors, duplicate
 * ids) is refused whole and nothing is saved. Validation findings (e.g. a missing head) do not block
 * a save, so drafts can be kept; they are returned and block a run instead.
 * A definition equal to the latest version saves nothing and returns that version (`unchanged`).
 * @throws LimitExceededError over TRELLIS_MAX_MESH_BYTES or TRELLIS_MAX_JSON_DEPTH.
 */
export async function saveMesh(db: Db, input: SaveMeshInput): Promise<SaveMeshResult> {
  guardMeshDefinition(input.definition);
  const parsed = parseMeshFile(input.definition);
  if (!parsed.ok) {
    return { ok: false, reason: 'invalid', findings: parsed.findings, message: 'the mesh file was refused; nothing was saved' };
  }
  const mesh = parsed.mesh;
  const findings = validateMesh(mesh, await nestedResolver(db, mesh), await knownTools(db, mesh));
  const lookup = input.meshId ? eq(meshes.id, input.meshId) : eq(meshes.name, input.name ?? mesh.name);
  const [existing] = await db.select().from(meshes).where(lookup);
  if (!existing) {
    if (input.meshId) return { ok: false, reason: 'invalid', findings: [], message: `no mesh ${input.meshId}` };
    return createMesh(db, mesh, findings, input);
  }
  if (input.baseVersion === 0 && !input.meshId) return nameTaken(existing.name, existing.latestVersion);
  if (input.baseVersion !== undefined && input.baseVersion < existing.latestVersion) {
    return conflict(existing.latestVersion, input.baseVersion);
  }
  if (mesh.name !== existing.name) {
    const [other] = await db.select({ id: meshes.id }).from(meshes).where(eq(meshes.name, mesh.name));
    if (other) return { ok: false, reason: 'conflict', findings: [], message: `another mesh is already named ${mesh.name}` };
  }
  const latest = await loadVersion(db, existing.id, existing.latestVersion);
  if (latest && canonicalJson(latest) === canonicalJson(mesh)) {
    return { ok: true, meshId: existing.id, name: existing.name, version: existing.latestVersion, created: false, unchanged: true, findings };
  }
  const saved = await db.transaction(async (tx) => {
    // Optimistic bump: of two saves based on the same version, only one moves latest_version.
    const [bumped] = await tx
      .update(meshes)
      .set({ latestVersion: sql`${meshes.latestVersion} + 1`, name: mesh.name, description: mesh.description ?? null, updatedAt: new Date() })
      .where(sql`${meshes.id} = ${existing.id} and ${meshes.latestVersion} = ${existing.latestVersion}`)
      .returning({ version: meshes.latestVersion });
    if (!bumped) return undefined;
    await tx.insert(meshVersions).values({ id: uuidv7(), meshId: existing.id, version: bumped.version, definition: mesh, createdBy: input.userId ?? null });
    await auditSave(tx, input, { meshId: existing.id, name: mesh.name, version: bumped.version, created: false });
    return bumped.version;
  });
  if (saved === undefined) {
    const [now] = await db.select({ v: meshes.latestVersion }).from(meshes).where(eq(meshes.id, existing.id));
    return conflict(now?.v ?? existing.latestVersion, input.baseVersion ?? existing.latestVersion);
  }
  return { ok: true, meshId: existing.id, name: mesh.name, version: saved, created: false, unchanged: false, findings };
}

/** The save's audit entry (`mesh.save` or `mesh.import`), in its transaction. */
function auditSave(tx: AuditWriter, input: SaveMeshInput, saved: { meshId: string; name: string; version: number; created: boolean }): Promise<number> {
  return appendAuditBy(tx, input.userId, {
    action: input.imported ? 'mesh.import' : 'mesh.save',
    target: saved.name,
    detail: { meshId: saved.meshId, version: saved.version, created: saved.created },
  });
}

async function createMesh(db: Db, def: Mesh, findings: Finding[], input: SaveMeshInput): Promise<SaveMeshResult> {
  const id = uuidv7();
  try {
    await db.transaction(async (tx) => {
      await tx.insert(meshes).values({ id, name: def.name, description: def.description ?? null, latestVersion: 1 });
      await tx.insert(meshVersions).values({ id: uuidv7(), meshId: id, version: 1, definition: def, createdBy: input.userId ?? null });
      await auditSave(tx, input, { meshId: id, name: def.name, version: 1, created: true });
    });
  } catch (err) {
    // Two first saves of the same name at once: the unique name makes one of them lose.
    const [other] = await db.select({ v: meshes.latestVersion }).from(meshes).where(eq(meshes.name, def.name));
    if (other) return nameTaken(def.name, other.v);
    throw err;
  }
  return { ok: true, meshId: id, name: def.name, version: 1, created: true, unchanged: false, findings };
}

function conflict(latestVersion: number, baseVersion: number): SaveMeshResult {
  return {
    ok: false,
    reason: 'conflict',
    findings: [],
    latestVersion,
    message: `the mesh changed since version ${baseVersion}: version ${latestVersion} is the latest; reload or compare before saving`,
  };
}

/** A new mesh (import, create) under a name another mesh already has. */
function nameTaken(name: string, latestVersion: number): SaveMeshResult {
  return {
    ok: false,
    reason: 'conflict',
    findings: [],
    latestVersion,
    message: `a mesh named ${name} already exists (its latest version is ${latestVersion}); nothing was saved: give it another "name" to make a new mesh, or open ${name} and use Import on its canvas to add the file as its next version`,
  };
}
