// `trellis reopen` as scripts use it: a real process on the embedded database, exit codes, JSON.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { dropPrefix } from '../../engine/test/harness';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'trellis-reopen-'));

function trellis(args: string[]) {
  const r = spawnSync(join(root, 'node_modules/.bin/tsx'), [join(root, 'packages/cli/src/main.ts'), ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '', TRELLIS_DATA_DIR: join(work, 'pglite'), TRELLIS_QUEUE_PREFIX: `clireopen${process.pid}`, TRELLIS_ATTEMPTS: '1' },
    timeout: 110_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('trellis reopen', () => {
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await dropPrefix(`clireopen${process.pid}`);
  });

  it('re-opens a failed run on the latest version (exit 0, exact output), refuses a done or unknown run (exit 2)', () => {
    const wordSplit = JSON.parse(readFileSync(join(root, 'examples/meshes/word-split.json'), 'utf8')) as { members: { id: string; steps?: unknown[] }[] };
    const broken = { ...wordSplit, members: wordSplit.members.map((m) => (m.id === 'words' ? { ...m, steps: [{ type: 'split', by: 'word', field: 'nope' }] } : m)) };
    writeFileSync(join(work, 'broken.json'), JSON.stringify(broken));
    writeFileSync(join(work, 'input.txt'), 'one two\nthree\n');
    const failed = trellis(['run', join(work, 'broken.json'), '--input', join(work, 'input.txt'), '--json']);
    expect(failed.code).toBe(1);
    const { runId, cause } = JSON.parse(failed.stdout) as { runId: string; cause: string };
    expect(cause).toBe('step_code_failed');

    // Saving the fixed file (its run is a new, done run) makes it the latest version.
    expect(trellis(['run', join(root, 'examples/meshes/word-split.json'), '--input', join(work, 'input.txt'), '--json']).code).toBe(0);
    const pinned = trellis(['reopen', runId, '--json', '--timeout', '20']);
    expect(pinned.code).toBe(1); // its own version still has the broken member
    const r = trellis(['reopen', runId, '--latest', '--json']);
    expect(r.stderr).not.toMatch(/trellis:/);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { status: string; reopen: { attempt: number; version: number; members: string[] } };
    expect(out).toMatchObject({ runId, status: 'done', reopen: { attempt: 3, version: 2, members: ['words'] } });

    const again = trellis(['reopen', runId]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/cannot be re-opened: it is done/);
    expect(trellis(['reopen', 'no-such-run']).code).toBe(2);
  }, 300_000);
});
