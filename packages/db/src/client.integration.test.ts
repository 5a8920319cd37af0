import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { DatabaseUnreachableError, openDb } from './client';

const CLIENT = fileURLToPath(new URL('./client.ts', import.meta.url));

/**
 * Opens the embedded database in `dir` from a separate Node process (the way the web server and a
 * CLI command meet), counts its messages and closes it; resolves with what it printed.
 */
function openInOtherProcess(dir: string): Promise<{ ok: boolean; out: string }> {
  const script = `const { openDb } = await import(${JSON.stringify(CLIENT)});
try { const h = await openDb({ dataDir: ${JSON.stringify(dir)} }); await h.close(); console.log('opened'); }
catch (e) { console.log('refused: ' + e.message); }`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 60_000 }, (err, stdout) => {
      if (err) reject(new Error(err.message));
      else resolve({ ok: stdout.includes('opened'), out: stdout.trim() });
    });
  });
}

describe('openDb', () => {
  it('keeps another process out of an embedded data directory until the first closes', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'trellis-db-')), 'pglite');
    const first = await openDb({ dataDir: dir });
    await first.migrate();
    // The lock file is the opener's own: this process's pid.
    expect(readFileSync(`${dir}.lock`, 'utf8')).toBe(String(process.pid));
    const refused = await openInOtherProcess(dir);
    expect(refused.ok).toBe(false);
    expect(refused.out).toContain(`process ${process.pid} has it open`);
    await first.close();
    expect(existsSync(`${dir}.lock`)).toBe(false);
    expect(await openInOtherProcess(dir)).toEqual({ ok: true, out: 'opened' });
    const again = await openDb({ dataDir: dir });
    const result: unknown = await again.db.execute(sql`select count(*)::int as n from messages`);
    expect((result as { rows: { n: number }[] }).rows[0]?.n).toBe(0);
    await again.close();
  });

  it('takes over a lock left by a process that has died', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'trellis-db-')), 'pglite');
    const gone = spawn(process.execPath, ['-e', '']);
    const pid = gone.pid ?? 0;
    await new Promise((r) => gone.once('exit', r));
    writeFileSync(`${dir}.lock`, String(pid));
    const handle = await openDb({ dataDir: dir });
    expect(readFileSync(`${dir}.lock`, 'utf8')).toBe(String(process.pid));
    await handle.close();
  });

  it('names DATABASE_URL when Postgres cannot be reached', async () => {
    const err = await openDb({ url: 'postgres://postgres@127.0.0.1:1/none' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseUnreachableError);
    expect((err as Error).message).toMatch(/127\.0\.0\.1:1.*DATABASE_URL/);
  });
});
