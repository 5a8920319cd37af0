// `trellis tool add|list|remove` as an admin's script uses it: real processes on the embedded database.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { dropPrefix } from '../../engine/test/harness';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'trellis-cli-tool-'));

function trellis(args: string[]) {
  const r = spawnSync(join(root, 'node_modules/.bin/tsx'), [join(root, 'packages/cli/src/main.ts'), ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '', TRELLIS_DATA_DIR: join(work, 'pglite'), TRELLIS_QUEUE_PREFIX: `clitool${process.pid}` },
    timeout: 110_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await dropPrefix(`clitool${process.pid}`);
});

describe('trellis tool', () => {
  it('registers a stdio and an HTTP tool server with secrets by name, lists them, refuses bad options, removes one', () => {
    const stdio = trellis(['tool', 'add', 'search', '--command', '/usr/local/bin/search-mcp', '--arg', '--stdio', '--env', 'MODE=fast', '--secret-env', 'SEARCH_KEY=search_key', '--json']);
    expect(stdio.code, stdio.stderr).toBe(0);
    expect(JSON.parse(stdio.stdout)).toMatchObject({
      name: 'search',
      config: { transport: 'stdio', command: '/usr/local/bin/search-mcp', args: ['--stdio'], env: { MODE: 'fast' }, secretEnv: { SEARCH_KEY: 'search_key' } },
    });
    const http = trellis(['tool', 'add', 'docs', '--url', 'https://tools.example.com/mcp', '--secret-header', 'Authorization=docs_token']);
    expect(http.code, http.stderr).toBe(0);
    expect(http.stdout).toContain('"tools": ["docs"]');

    expect(trellis(['tool', 'add', 'both', '--command', 'x', '--url', 'https://a.example/mcp']).stderr).toContain('give either --command');
    expect(trellis(['tool', 'add', 'pair', '--command', 'x', '--env', 'NOEQUALS']).stderr).toContain('--env "NOEQUALS": expected NAME=value');

    const listed = trellis(['tool', 'list']);
    expect(listed.stdout).toContain('docs  http  https://tools.example.com/mcp');
    expect(listed.stdout).toContain('search  stdio  /usr/local/bin/search-mcp --stdio');
    expect(trellis(['tool', 'remove', 'docs']).code).toBe(0);
    expect(trellis(['tool', 'remove', 'docs']).code).toBe(2);
  }, 400_000);
});
