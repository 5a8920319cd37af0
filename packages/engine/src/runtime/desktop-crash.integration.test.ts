/**
 * Desktop mode survives `kill -9`: one process on the embedded database with no REDIS_URL (so the
 * in-process bus) and redis-server / redis-cli hidden from its PATH runs word-split on licenses.txt;
 * it is killed mid-run, started again on the same data directory, and the run finishes exact: every
 * message done once, no join fired twice, the text back byte for byte.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '@trellis/db/client';
import { expectExactDone, licensesText } from '../../test/harness';
import { getRun } from '../runs/get-run';

const CHILD = fileURLToPath(new URL('../../test/desktop-child.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'trellis-desktop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The environment of a machine with nothing but Node: no Redis on PATH, no REDIS_URL, no DATABASE_URL. */
function desktopEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TRELLIS_DATA_DIR: join(dir, 'pglite') };
  delete env.REDIS_URL;
  delete env.DATABASE_URL;
  delete env.TRELLIS_QUEUE_PREFIX;
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((d) => d && !existsSync(join(d, 'redis-server')) && !existsSync(join(d, 'redis-cli')))
    .join(delimiter);
  return env;
}

interface Child {
  lines: Record<string, unknown>[];
  until(pred: (line: Record<string, unknown>) => boolean, ms: number): Promise<Record<string, unknown>>;
  kill(): Promise<void>;
  exited: Promise<number | string>;
}

function child(args: string[]): Child {
  const p = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: REPO, env: desktopEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  let err = '';
  let buf = '';
  const waiters = new Set<() => void>();
  p.stdout.on('data', (b: Buffer) => {
    buf += b.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buf.slice(0, nl)) as Record<string, unknown>);
      buf = buf.slice(nl + 1);
      for (const w of waiters) w();
    }
  });
  p.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | string>((resolve) => p.once('exit', (code, sig) => resolve(code ?? sig ?? -1)));
  return {
    lines,
    exited,
    until(pred, ms) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = lines.find(pred);
          if (hit) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(hit);
          }
        };
        const timer = setTimeout(() => reject(new Error(`no such line in ${ms} ms; stderr: ${err.slice(-2000)}`)), ms);
        void exited.then((c) => setTimeout(() => reject(new Error(`exited (${c}); stderr: ${err.slice(-2000)}`)), 50));
        waiters.add(check);
        check();
      });
    },
    async kill() {
      p.kill('SIGKILL');
      await exited;
    },
  };
}

describe('desktop mode (in-process bus)', () => {
  it('finishes a word-split run exact after kill -9 mid-run and a restart', { timeout: 600_000 }, async () => {
    const file = join(dir, 'licenses.txt');
    writeFileSync(file, licensesText());
    const first = child(['start', file]);
    expect(await first.until((l) => 'bus' in l, 180_000)).toEqual({ bus: 'local' });
    const { runId } = (await first.until((l) => 'runId' in l, 120_000)) as { runId: string };
    // Mid-run: a few thousand of the ~40,000 messages done, most still to go.
    await first.until((l) => typeof l.done === 'number' && l.done > 3_000, 240_000);
    await first.kill();

    const second = child(['resume', runId]);
    expect(await second.until((l) => 'bus' in l, 180_000)).toEqual({ bus: 'local' });
    expect(await second.until((l) => 'status' in l, 300_000)).toEqual({ status: 'done' });
    expect(await second.exited).toBe(0);

    const handle = await openDb({ dataDir: join(dir, 'pglite') });
    try {
      const ex = await expectExactDone(handle.db, runId);
      expect(ex.done).toBe(ex.published);
      const view = await getRun(handle.db, runId);
      expect(Buffer.from((view?.output as { text: string }).text, 'utf8').equals(licensesText())).toBe(true);
      expect(view?.memberCounts['join-pages']?.done).toBe(15);
    } finally {
      await handle.close();
    }
  });
});
