/** Use case: import the example meshes that are not in the database yet. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { meshes } from '@trellis/db/schema/meshes';
import { saveMesh } from './save-mesh';

/** What seeding did, per file. */
export interface SeedReport {
  seeded: string[];
  skipped: string[];
  refused: { file: string; message: string }[];
}

/**
 * Imports every `*.json` in `dir` whose mesh name is not saved yet; existing meshes are left alone,
 * so a person's edits are never overwritten. A refused file is reported, not thrown.
 * @throws when `dir` cannot be read.
 */
export async function seedExampleMeshes(db: Db, dir: string): Promise<SeedReport> {
  const report: SeedReport = { seeded: [], skipped: [], refused: [] };
  const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  for (const file of files) {
    const text = await readFile(join(dir, file), 'utf8');
    const name = nameOf(text);
    if (name) {
      const [found] = await db.select({ id: meshes.id }).from(meshes).where(eq(meshes.name, name));
      if (found) {
        report.skipped.push(name);
        continue;
      }
    }
    const result = await saveMesh(db, { definition: text });
    if (result.ok) report.seeded.push(result.name);
    else report.refused.push({ file, message: result.findings[0]?.message ?? result.message });
  }
  return report;
}

function nameOf(text: string): string | undefined {
  try {
    const v = JSON.parse(text) as { name?: unknown };
    return typeof v.name === 'string' ? v.name : undefined;
  } catch {
    return undefined;
  }
}
