// One-shot set-up before the processes start: applies the committed migrations, creates the first
// admin from TRELLIS_ADMIN_EMAIL / TRELLIS_ADMIN_PASSWORD and seeds the example meshes. Idempotent.
// Run alone so that several processes never migrate the same database at once.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDb } from '@trellis/db/client';
import { loadEngineEnv } from '@trellis/engine/env';
import { seedExampleMeshes } from '@trellis/engine/meshes/seed-examples';
import { writeFileSync } from 'node:fs';
import { ensureAdmin, passwordInForce } from '@trellis/engine/users/ensure-admin';
import { checkStartupSafety } from '@trellis/engine/users/startup-safety';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

try {
  // The Kubernetes files (docker/kubernetes) ship placeholder secrets marked CHANGE-ME: never create an admin with one.
  if (process.env.TRELLIS_ADMIN_PASSWORD?.includes('CHANGE-ME')) {
    throw new Error('TRELLIS_ADMIN_PASSWORD is still the placeholder CHANGE-ME: set the first admin\'s password in the trellis-secrets Secret');
  }
  const env = loadEngineEnv();
  const handle = await openDb({ url: env.databaseUrl, dataDir: env.dataDir });
  try {
    await handle.migrate();
    await checkStartupSafety(handle.db, { development: process.env.NODE_ENV === 'development', adminPassword: process.env.TRELLIS_ADMIN_PASSWORD });
    const admin = await ensureAdmin(handle.db, {
      email: process.env.TRELLIS_ADMIN_EMAIL,
      password: process.env.TRELLIS_ADMIN_PASSWORD,
    });
    if (admin.created) console.log(`created the first admin: ${admin.email}`);
    // npm start asks whether its generated password is the admin's (scripts/start.mjs banner).
    const reportFile = process.env.TRELLIS_ADMIN_PASSWORD_REPORT;
    if (reportFile) {
      const inForce = await passwordInForce(handle.db, process.env.TRELLIS_ADMIN_EMAIL ?? 'admin@trellis.local', process.env.TRELLIS_ADMIN_PASSWORD ?? '');
      writeFileSync(reportFile, JSON.stringify({ inForce }), { mode: 0o600 });
    }
    const report = await seedExampleMeshes(handle.db, path.join(root, 'examples', 'meshes'));
    if (report.seeded.length) console.log(`seeded example meshes: ${report.seeded.join(', ')}`);
    for (const r of report.refused) console.error(`example ${r.file} refused: ${r.message}`);
    console.log(`database ready (${handle.kind === 'pglite' ? 'embedded PGlite in ' + env.dataDir : 'postgres'})`);
  } finally {
    await handle.close();
  }
} catch (err) {
  console.error(`\u2717 ${err instanceof Error ? err.message : String(err)}`);
  process.exit(2);
}
