/**
 * Whose code a code step runs, for the warm sandbox pool (code-pool.ts): the delivery's mesh
 * version and the user who saved it (`mesh_versions.created_by`). A version row is never changed
 * after it is saved (a save makes a new version), so the answer is remembered per mesh id and
 * version and the database is asked once per version, not once per message.
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { meshVersions } from '@trellis/db/schema/meshes';
import type { SandboxOwner } from './code-pool';
import type { StepRun } from './types';

/** Versions whose author is remembered at once; the oldest is forgotten first. */
const MAX_REMEMBERED = 1_000;
/** Author per `meshId@version`; undefined for a version not stored. */
const authors = new Map<string, Promise<string | null | undefined>>();

/**
 * The owner of `run`'s mesh version, or undefined when the step runs outside a delivery (direct
 * calls, tests) or the version is not stored: the step then gets a one-shot sandbox process.
 */
export async function sandboxOwner(db: Db, run: StepRun | undefined): Promise<SandboxOwner | undefined> {
  if (!run?.meshId || run.meshVersion === undefined) return undefined;
  const { meshId, meshVersion: version } = run;
  const key = `${meshId}@${version}`;
  let author = authors.get(key);
  if (!author) {
    author = db
      .select({ createdBy: meshVersions.createdBy })
      .from(meshVersions)
      .where(and(eq(meshVersions.meshId, meshId), eq(meshVersions.version, version)))
      .then((rows) => (rows[0] ? rows[0].createdBy : undefined));
    authors.set(key, author);
    if (authors.size > MAX_REMEMBERED) authors.delete(authors.keys().next().value as string);
  }
  try {
    const who = await author;
    if (who === undefined) {
      authors.delete(key);
      return undefined;
    }
    return { meshId, version, author: who };
  } catch (err) {
    authors.delete(key);
    throw err;
  }
}
