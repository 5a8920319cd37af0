// `trellis user …` as an admin uses it on the server: real processes, exit codes and output.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { dropPrefix } from '../../engine/test/harness';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'trellis-user-'));

afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await dropPrefix(`user${process.pid}`);
});

function trellis(args: string[]) {
  const r = spawnSync(join(root, 'node_modules/.bin/tsx'), [join(root, 'packages/cli/src/main.ts'), 'user', ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '', TRELLIS_DATA_DIR: join(work, 'pglite'), TRELLIS_QUEUE_PREFIX: `user${process.pid}` },
    timeout: 110_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('trellis user', () => {
  it('adds, lists, changes the role of, disables and removes people, keeping an admin', () => {
    const admin = trellis(['add', 'boss@x.test', '--role', 'admin', '--password', 'boss-password']);
    expect(admin).toMatchObject({ code: 0, stdout: 'user boss@x.test added as admin\n' });
    const added = trellis(['add', 'dee@x.test', '--role', 'designer', '--json']);
    expect(added.code).toBe(0);
    const invited = JSON.parse(added.stdout) as { email: string; role: string; password: string };
    expect(invited).toMatchObject({ email: 'dee@x.test', role: 'designer' });
    expect(invited.password.length).toBeGreaterThanOrEqual(16);

    expect(trellis(['role', 'dee@x.test', 'operator'])).toMatchObject({ code: 0, stdout: 'user dee@x.test is now operator; their open sessions have ended\n' });
    expect(trellis(['disable', 'dee@x.test']).code).toBe(0);
    const listed = JSON.parse(trellis(['list', '--json']).stdout) as { users: { email: string; role: string; disabled: boolean }[] };
    expect(listed.users.map((u) => [u.email, u.role, u.disabled])).toEqual([
      ['boss@x.test', 'admin', false],
      ['dee@x.test', 'operator', true],
    ]);

    const last = trellis(['remove', 'boss@x.test']);
    expect(last.code).toBe(1);
    // stderr may start with the engine's Redis durability warning; the error is its own line.
    expect(last.stderr).toContain('trellis: refused by the last-admin policy: cannot remove the only active admin; make another admin first\n');
    const badRole = trellis(['role', 'dee@x.test', 'owner']);
    expect(badRole.code).toBe(1);
    expect(badRole.stderr).toContain('role: "owner" is not a role; expected one of admin, designer, operator, viewer');
    expect(trellis(['remove', 'dee@x.test'])).toMatchObject({ code: 0, stdout: 'user dee@x.test removed; their open sessions have ended\n' });
    const gone = trellis(['remove', 'dee@x.test']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('trellis: no user dee@x.test\n');
  }, 240_000);
});
