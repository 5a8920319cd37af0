// `npx tsx scripts/bench-audit.ts [entries]`: how long `trellis audit verify` takes on a trail of
// 100,000 entries (default) in a fresh Postgres database (TRELLIS_TEST_DATABASE_URL's server).
import { openDb } from '@trellis/db/client';
import { auditLog } from '@trellis/db/schema/audit-log';
import { entryHash, GENESIS_HASH, type AuditFields } from '@trellis/engine/audit/chain';
import { verifyAudit } from '@trellis/engine/audit/verify';
import { createTestDatabase } from '../packages/engine/test/harness';

const total = Number(process.argv[2] ?? 100_000);
const database = await createTestDatabase();
const handle = await openDb({ url: database.url });
try {
  await handle.migrate();
  let prevHash = GENESIS_HASH;
  const start = Date.now() - total * 1000;
  const fillStarted = performance.now();
  for (let seq = 1; seq <= total; ) {
    const batch: (AuditFields & { prevHash: string; hash: string })[] = [];
    for (const end = Math.min(total, seq + 4999); seq <= end; seq++) {
      const fields: AuditFields = {
        seq,
        at: new Date(start + seq * 1000),
        actorId: `u${seq % 17}`,
        actorEmail: `person${seq % 17}@bench.test`,
        action: ['sign_in', 'user.role', 'token.create', 'service.add'][seq % 4] ?? 'sign_in',
        target: `target-${seq % 101}`,
        detail: { address: `10.0.${seq % 250}.${seq % 7}`, n: seq },
      };
      const hash = entryHash(prevHash, fields);
      batch.push({ ...fields, prevHash, hash });
      prevHash = hash;
    }
    await handle.db.insert(auditLog).values(batch);
  }
  console.log(`wrote ${total} chained entries in ${((performance.now() - fillStarted) / 1000).toFixed(1)} s`);
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const verdict = await verifyAudit(handle.db);
    runs.push((performance.now() - t) / 1000);
    if (!verdict.ok || verdict.entries !== total) throw new Error(`unexpected verdict ${JSON.stringify(verdict)}`);
  }
  console.log(`verify ${total} entries: ${runs.map((r) => `${r.toFixed(2)} s`).join(', ')} (best ${Math.min(...runs).toFixed(2)} s)`);
} finally {
  await handle.close();
  await database.drop();
}
