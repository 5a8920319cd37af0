/**
 * `trellis audit verify`: checks the audit trail's hash chain from the first entry; exit 0 when it
 * holds, 1 naming the first broken entry.
 */
import { verifyAudit } from '@trellis/engine/audit/verify';
import { open, settings } from '../boot';
import { EXIT } from '../fail';

/** Verifies the chain and prints the verdict (and how long it took). */
export async function auditVerifyCommand(opts: { json?: boolean }): Promise<number> {
  const booted = await open(settings());
  try {
    const started = performance.now();
    const verdict = await verifyAudit(booted.engine.db);
    const seconds = Number(((performance.now() - started) / 1000).toFixed(2));
    if (opts.json) {
      process.stdout.write(`${JSON.stringify({ ...verdict, seconds })}\n`);
    } else if (verdict.ok) {
      process.stdout.write(`audit trail intact: ${verdict.entries} entries, last hash ${verdict.lastHash.slice(0, 16)}… (${seconds} s)\n`);
    } else {
      const b = verdict.broken;
      process.stdout.write(`audit trail broken at entry ${b.seq} (${b.action}, ${b.at.toISOString()}): ${b.reason}; the ${verdict.entries} entries before it are intact\n`);
    }
    return verdict.ok ? EXIT.ok : EXIT.failed;
  } finally {
    await booted.close();
  }
}
