// The `trellis` command as scripts use it: real processes, exit codes and output (DESIGN.md §6).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { dropPrefix } from '../../engine/test/harness';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const mesh = join(root, 'examples/meshes/word-split.json');
const work = mkdtempSync(join(tmpdir(), 'trellis-cli-'));

// The commands' BullMQ keys and embedded database go when the file is done.
afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await dropPrefix(`cli${process.pid}`);
});

function trellis(args: string[], env: Record<string, string | undefined> = {}) {
  const r = spawnSync(join(root, 'node_modules/.bin/tsx'), [join(root, 'packages/cli/src/main.ts'), ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '', TRELLIS_DATA_DIR: join(work, 'pglite'), TRELLIS_QUEUE_PREFIX: `cli${process.pid}`, ...env },
    timeout: 110_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('trellis validate', () => {
  it('exits 0 for a valid mesh and prints findings as JSON', () => {
    const r = trellis(['validate', mesh, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ valid: true, findings: [] });
  });

  it('exits 1 with findings (also for a file that is not JSON or not trellis.mesh/v1), 2 for an unreadable file', () => {
    const noHead = join(work, 'no-head.json');
    writeFileSync(noHead, JSON.stringify({ format: 'trellis.mesh/v1', name: 'x', members: [{ id: 'a', kind: 'agent', model: 'demo' }], channels: [] }));
    const r = trellis(['validate', noHead, '--json']);
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stdout) as { findings: { code: string }[] }).findings.map((f) => f.code)).toContain('head_missing');
    const notJson = join(work, 'bad.json');
    writeFileSync(notJson, '{ nope');
    const r2 = trellis(['validate', notJson, '--json']);
    expect(r2.code).toBe(1);
    expect((JSON.parse(r2.stdout) as { findings: { code: string }[] }).findings.map((f) => f.code)).toEqual(['not_json']);
    const v2 = join(work, 'v2.json');
    writeFileSync(v2, JSON.stringify({ format: 'trellis.mesh/v2', name: 'x', members: [], channels: [] }));
    expect(trellis(['validate', v2]).code).toBe(1);
    const missing = trellis(['validate', join(work, 'absent.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read mesh file .*absent\.json: no such file/);
    const missingJson = trellis(['validate', join(work, 'absent.json'), '--json']);
    expect(missingJson.code).toBe(2);
    const missingError = (JSON.parse(missingJson.stdout) as { error: { code: string; message: string } }).error;
    expect(missingError.code).toBe('usage');
    expect(missingError.message).toMatch(/cannot read mesh file .*absent\.json/);
    const badOption = trellis(['runs', '--json', '--no-such-option']);
    expect(badOption.code).toBe(2);
    const optionError = (JSON.parse(badOption.stdout) as { error: { code: string; message: string } }).error;
    expect(optionError.code).toBe('usage');
    expect(optionError.message).toContain('--no-such-option');
  });
});

describe('trellis run', () => {
  it('runs alone on the embedded database, prints one JSON object and writes the output bytes', () => {
    const input = join(work, 'in.txt');
    const output = join(work, 'out.txt');
    writeFileSync(input, 'tabs\tand  spaces\r\nsecond page\f\u00e9t\u00e9 🎉');
    const r = trellis(['run', mesh, '--input', input, '--output', output, '--json']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as { status: string; counts: Record<string, number>; runId: string; seconds: number };
    expect(summary.status).toBe('done');
    expect(summary.counts.published).toBe(summary.counts.done);
    expect(Object.keys(summary.counts).sort()).toEqual(['deadLettered', 'delivered', 'done', 'filtered', 'lost', 'published']);
    expect(readFileSync(output).equals(readFileSync(input))).toBe(true);
    const runs = trellis(['runs', '--json']);
    expect(runs.code).toBe(0);
    expect((JSON.parse(runs.stdout) as { runs: { runId: string }[] }).runs[0]?.runId).toBe(summary.runId);
  });

  it('exits 1 and names input_rejected for invalid UTF-8', () => {
    const input = join(work, 'latin1.txt');
    writeFileSync(input, Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    const r = trellis(['run', mesh, '--input', input, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'failed', cause: 'input_rejected' });
  });

  it('exits 2 with one clear line when Redis is unreachable', () => {
    const input = join(work, 'in.txt');
    writeFileSync(input, 'x');
    const r = trellis(['run', mesh, '--input', input, '--json'], { REDIS_URL: 'redis://127.0.0.1:1' });
    expect(r.code).toBe(2);
    // With --json, stdout holds exactly one JSON object naming the error; stderr the one line.
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const answer = JSON.parse(r.stdout) as { error: { code: string; message: string } };
    expect(Object.keys(answer)).toEqual(['error']);
    expect(answer.error.code).toBe('redis_unreachable');
    expect(answer.error.message).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1.*REDIS_URL/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1.*REDIS_URL/);
  });

  it('exits 2 with one clear line when the database is unreachable', () => {
    const input = join(work, 'in.txt');
    writeFileSync(input, 'x');
    const r = trellis(['run', mesh, '--input', input], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot reach the database .*DATABASE_URL/);
  });

  it('exits 2 for bad arguments, naming what is wrong; reopen of a run that does not exist names the run', () => {
    const noInput = trellis(['run', mesh]);
    expect(noInput.code).toBe(2);
    expect(noInput.stderr).toMatch(/required option '--input/);
    const badTimeout = trellis(['run', mesh, '--input', 'x', '--timeout', 'soon']);
    expect(badTimeout.code).toBe(2);
    expect(badTimeout.stderr).toMatch(/--timeout/);
    // reopen is supported (reopen.integration.test.ts); here it is refused for the run alone.
    const missing = trellis(['reopen', 'some-run']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^trellis: .*some-run/m);
    expect(missing.stderr).not.toMatch(/not supported/);
  });

  it('exits 2 with the findings, and no run, for a mesh file that is not JSON or not valid', () => {
    const input = join(work, 'in.txt');
    writeFileSync(input, 'x');
    const notJson = join(work, 'bad.json');
    writeFileSync(notJson, '{ nope');
    const r = trellis(['run', notJson, '--input', input]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('error not_json');
    expect(r.stderr).toContain('bad.json is not a readable trellis.mesh/v1 file');
    const typo = join(work, 'typo.json');
    writeFileSync(typo, JSON.stringify({
      format: 'trellis.mesh/v1',
      name: 'typo',
      members: [{ id: 'a', kind: 'agent', model: 'demo', head: true }],
      channels: [{ from: 'a', to: 'b', when: 'score >' }],
    }));
    const j = trellis(['run', typo, '--input', input, '--json']);
    expect(j.code).toBe(2);
    const refused = JSON.parse(j.stdout) as { runId: null; status: string; error: { code: string }; findings: { code: string }[] };
    expect(refused).toMatchObject({ runId: null, status: 'refused', error: { code: 'mesh_invalid' } });
    expect(refused.findings.map((f) => f.code)).toContain('member_missing');
    const runs = trellis(['runs', '--json']);
    expect((JSON.parse(runs.stdout) as { runs: { mesh: string }[] }).runs.filter((x) => x.mesh === 'typo')).toEqual([]);
  });

  it('imports a nested mesh from the file beside it and reads an .eml input that is not UTF-8 as bytes', () => {
    const dir = mkdtempSync(join(work, 'nested-'));
    writeFileSync(join(dir, 'unpack.json'), JSON.stringify({
      format: 'trellis.mesh/v1',
      name: 'unpack',
      members: [
        { id: 'mail', kind: 'workflow', head: true, steps: [{ type: 'email', id: { field: 'ref', pattern: 'REF-\\d+' } }] },
        { id: 'files', kind: 'combine', merge: { type: 'collect', into: 'files' } },
      ],
      channels: [{ from: 'mail', to: 'files' }],
    }));
    const outer = join(dir, 'outer.json');
    writeFileSync(outer, JSON.stringify({
      format: 'trellis.mesh/v1',
      name: 'outer',
      members: [{ id: 'inner', kind: 'mesh', mesh: 'unpack', head: true }],
      channels: [],
    }));
    const eml = join(dir, 'latin1.eml');
    const body = 'From: a@example.com\nSubject: REF-7\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b"\n\n' +
      '--b\nContent-Type: text/plain; charset=iso-8859-1\nContent-Disposition: attachment; filename="menu.txt"\nContent-Transfer-Encoding: 8bit\n\ncaf\u00e9\n--b--\n';
    writeFileSync(eml, Buffer.from(body, 'latin1'));
    const output = join(dir, 'out.json');
    const r = trellis(['run', outer, '--input', eml, '--output', output, '--json']);
    expect(r.stderr).toContain(`imported nested mesh ${join(dir, 'unpack.json')}`);
    expect(r.code).toBe(0);
    const out = JSON.parse(readFileSync(output, 'utf8')) as { files: { ref: string; file_name: string; text: string }[] };
    expect(out.files.map((f) => [f.ref, f.file_name, f.text])).toEqual([['REF-7', 'menu.txt', 'caf\u00e9']]);
  });
});

describe('trellis worker', () => {
  it('refuses a pool name that is not a pool id, naming --pool, before connecting', () => {
    const r = trellis(['worker', '--pool', 'agents:gpu'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--pool names "agents:gpu"');
  });
});

describe('trellis cancel', () => {
  it('cancels a run that waits, setting its open message aside (exit 0), and refuses one that has ended (exit 2)', () => {
    const waiting = join(work, 'waits.json');
    writeFileSync(
      waiting,
      JSON.stringify({
        format: 'trellis.mesh/v1',
        name: 'waits-for-a-service',
        members: [
          { id: 'start', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
          { id: 'records', kind: 'service', service: 'nobody-serves-this', claimTimeoutSeconds: 3600 },
        ],
        channels: [{ from: 'start', to: 'records' }],
      }),
    );
    const input = join(work, 'wait-input.txt');
    writeFileSync(input, 'x');
    const started = trellis(['run', waiting, '--input', input, '--json', '--timeout', '2']);
    expect(started.code).toBe(1);
    const { runId, status } = JSON.parse(started.stdout) as { runId: string; status: string };
    expect(status).toBe('running');
    const r = trellis(['cancel', runId, '--reason', 'not needed', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ runId, status: 'cancelled', runs: [runId], messages: 1 });
    const listed = JSON.parse(trellis(['runs', '--status', 'cancelled', '--json']).stdout) as { runs: { runId: string; status: string }[] };
    expect(listed.runs.map((x) => [x.runId, x.status])).toEqual([[runId, 'cancelled']]);
    const again = trellis(['cancel', runId]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/has already ended \(cancelled\)/);
  }, 120_000);
});
