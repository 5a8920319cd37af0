/**
 * The short chaos drill (`npm run chaos` is the long one): one document per fault, three worker
 * processes with 3 s locks, a 5 s freeze. Every document must come back exact, nothing lost,
 * no join fired twice.
 */
import { describe, expect, it } from 'vitest';
import { licensesText } from '../../test/harness';
import { chaosTable, runChaos } from '../../test/chaos';

describe('chaos, short', () => {
  it('every fault: the document comes back exact, nothing lost or doubled', { timeout: 200_000 }, async () => {
    const corpus = licensesText();
    const doc = corpus.subarray(corpus.indexOf(0x0c) + 1, corpus.indexOf(0x0c, corpus.indexOf(0x0c, corpus.indexOf(0x0c) + 1) + 1) + 1);
    const table = await runChaos({
      doc,
      docs: 1,
      freezeMs: 5_000,
      workerEnv: { TRELLIS_LOCK_DURATION_MS: '3000', TRELLIS_STALLED_INTERVAL_MS: '1000' },
      timeoutMs: 60_000,
    });
    const text = chaosTable(table);
    for (const row of table) {
      expect(row, text).toMatchObject({ exact: 1, lost: 0, duplicateJoins: 0 });
      expect(row.delivered, text).toBe(row.published);
    }
  });
});
