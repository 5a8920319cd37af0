import { execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { restoreDataDir } from './backup';
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

/** The permission bits of `path` (e.g. 0o700). */
const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Every file under `dir` that other users may write (the `find -perm -o+w` check). */
function worldWritable(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => (statSync(join(dir, f)).mode & 0o002) !== 0);
}

describe('the embedded data directory is private to its user', () => {
  it('is made 0700 under umask 022, an existing 0755 one is tightened, and a restore keeps both directories 0700', async () => {
    const previousUmask = process.umask(0o022);
    try {
      const parent = join(mkdtempSync(join(tmpdir(), 'trellis-db-')), 'data');
      const dir = join(parent, 'pglite');
      const first = await openDb({ dataDir: dir });
      await first.migrate();
      expect(modeOf(parent).toString(8)).toBe('700');
      expect(modeOf(dir).toString(8)).toBe('700');
      expect(worldWritable(dir)).toEqual([]);
      const snapshot = await first.snapshot();
      await first.close();

      // A directory an older version left open is closed on the next open.
      chmodSync(dir, 0o755);
      const again = await openDb({ dataDir: dir });
      expect(modeOf(dir).toString(8)).toBe('700');
      await again.close();

      chmodSync(dir, 0o755);
      const restored = await restoreDataDir(dir, snapshot);
      expect(modeOf(restored.dataDir).toString(8)).toBe('700');
      expect(worldWritable(restored.dataDir)).toEqual([]);
      expect(restored.previous).toBeDefined();
      expect(modeOf(restored.previous ?? '').toString(8)).toBe('700');

      // Into a folder that does not exist yet: made private too.
      const elsewhere = join(mkdtempSync(join(tmpdir(), 'trellis-db-')), 'new', 'pglite');
      mkdirSync(join(elsewhere, '..', '..'), { recursive: true });
      const fresh = await restoreDataDir(elsewhere, snapshot);
      expect(modeOf(fresh.dataDir).toString(8)).toBe('700');
      expect(modeOf(join(fresh.dataDir, '..')).toString(8)).toBe('700');
    } finally {
      process.umask(previousUmask);
    }
  });
});

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
