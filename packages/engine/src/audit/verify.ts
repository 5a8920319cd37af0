/**
 * `trellis audit verify`: reads the whole trail in order, in pages, recomputing every hash; the
 * first entry whose sequence, previous hash or hash does not follow is named.
 */
import { asc, gt } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { auditLog } from '@trellis/db/schema/audit-log';
import { entryHash, GENESIS_HASH } from './chain';

/** What a verification found. */
export type AuditVerdict =
  | { ok: true; entries: number; lastHash: string }
  | { ok: false; entries: number; broken: { seq: number; action: string; at: Date; reason: string } };

const PAGE = 5000;

/** Verifies the chain from the first entry. */
export async function verifyAudit(db: Db): Promise<AuditVerdict> {
  let expectedSeq = 1;
  let prevHash = GENESIS_HASH;
  for (;;) {
    const rows = await db.select().from(auditLog).where(gt(auditLog.seq, expectedSeq - 1)).orderBy(asc(auditLog.seq)).limit(PAGE);
    for (const row of rows) {
      const broken = (reason: string): AuditVerdict => ({ ok: false, entries: expectedSeq - 1, broken: { seq: row.seq, action: row.action, at: row.at, reason } });
      if (row.seq !== expectedSeq) return broken(`entry ${expectedSeq} is missing`);
      if (row.prevHash !== prevHash) return broken('its previous hash does not match the entry before it (an entry was removed or inserted)');
      const { hash, prevHash: _prev, ...fields } = row;
      if (entryHash(prevHash, fields) !== hash) return broken('its contents do not match its hash (the entry was edited)');
      prevHash = hash;
      expectedSeq += 1;
    }
    if (rows.length < PAGE) return { ok: true, entries: expectedSeq - 1, lastHash: prevHash };
  }
}
