// `trellis service add|list|remove` as scripts use it: real processes on the embedded database.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { dropPrefix } from '../../engine/test/harness';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'trellis-cli-svc-'));

function trellis(args: string[]) {
  const r = spawnSync(join(root, 'node_modules/.bin/tsx'), [join(root, 'packages/cli/src/main.ts'), ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '', TRELLIS_DATA_DIR: join(work, 'pglite'), TRELLIS_QUEUE_PREFIX: `clisvc${process.pid}` },
    timeout: 110_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await dropPrefix(`clisvc${process.pid}`);
});

describe('trellis service', () => {
  it('adds a service printing its key once, lists it without the key, refuses a taken or bad name, removes it', () => {
    const added = trellis(['service', 'add', 'records-check', '--json']);
    expect(added.code).toBe(0);
    const { name, apiKey } = JSON.parse(added.stdout) as { name: string; apiKey: string };
    expect(name).toBe('records-check');
    expect(apiKey).toMatch(/^trs_[A-Za-z0-9_-]{43}$/);

    const taken = trellis(['service', 'add', 'records-check']);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('a service named records-check is registered already');
    const bad = trellis(['service', 'add', 'bad name']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('expected 1-63 letters, digits');

    const listed = trellis(['service', 'list', '--json']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(apiKey);
    expect((JSON.parse(listed.stdout) as { services: { name: string; keyPrefix: string }[] }).services.map((s) => [s.name, apiKey.startsWith(s.keyPrefix)])).toEqual([
      ['records-check', true],
    ]);
    expect(trellis(['service', 'remove', 'records-check']).code).toBe(0);
    expect(trellis(['service', 'remove', 'records-check']).code).toBe(2);
  });
});
