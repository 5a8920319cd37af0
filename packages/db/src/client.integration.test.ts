import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { DatabaseUnreachableError, openDb } from './client';

describe('openDb', () => {
  it('keeps a second opener out of an embedded data directory until the first closes', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'trellis-db-')), 'pglite');
    const first = await openDb({ dataDir: dir });
    await first.migrate();
    // A second opener in this process stands in for another process: the lock names the owner.
    const lockFile = `${dir}.lock`;
    writeFileSync(lockFile, String(process.ppid));
    await expect(openDb({ dataDir: dir })).rejects.toThrow(/process \d+ has it open/);
    await first.close();
    const again = await openDb({ dataDir: dir });
    const result: unknown = await again.db.execute(sql`select count(*)::int as n from messages`);
    expect((result as { rows: { n: number }[] }).rows[0]?.n).toBe(0);
    await again.close();
  });

  it('names DATABASE_URL when Postgres cannot be reached', async () => {
    const err = await openDb({ url: 'postgres://postgres@127.0.0.1:1/none' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseUnreachableError);
    expect((err as Error).message).toMatch(/127\.0\.0\.1:1.*DATABASE_URL/);
  });
});
