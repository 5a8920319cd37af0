// `trellis backup` / `trellis restore` on the embedded database: a snapshot taken mid-run from a running
// Trellis (over its REST API, since it holds the database), restored into a fresh data directory, where
// the run goes on to done with the exact output. "Mid-run" is made certain, not timed: the mesh parks
// an output for approval, so the run cannot end before the snapshot; it is approved after the restore.
// It lives here rather than in packages/cli because it serves this package's REST API in-process.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { handleRest } from './routes';
import { decideApproval } from '@trellis/engine/approvals/decide';
import { loadEngineEnv } from '@trellis/engine/env';
import { saveMesh } from '@trellis/engine/meshes/save-mesh';
import { boot, type Booted } from '@trellis/engine/runtime/boot';
import { startInProcess } from '@trellis/engine/runtime/in-process';
import { startRun } from '@trellis/engine/runs/start-run';
import { waitForRun } from '@trellis/engine/runs/wait-run';
import { rows } from '@trellis/engine/sql';
import { createPersonalToken } from '@trellis/engine/tokens/create-token';
import { addUser } from '@trellis/engine/users/add-user';
import { expectExactDone, WORD_SPLIT } from '../../../engine/test/harness';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'trellis-backup-'));
const first = join(work, 'first', 'pglite');
const fresh = join(work, 'fresh', 'pglite');
const backupFile = join(work, 'trellis.backup');
// The sealing key lives outside the database (a file or TRELLIS_SECRETS_KEY): a restore needs the same one.
const SECRETS_KEY = Buffer.alloc(32, 9).toString('hex');
const INPUT = 'one two\nthree four five\n\fsecond page\n';

// The review member parks each page's joined lines until someone approves: the run waits, unworked.
const definition = (() => {
  const mesh = JSON.parse(WORD_SPLIT) as { name: string; members: { id: string; approval?: string }[] };
  return { ...mesh, name: 'word-split-reviewed', members: mesh.members.map((m) => (m.id === 'join-lines' ? { ...m, approval: 'required' } : m)) };
})();

/** Runs the CLI without blocking this process (which serves the REST API the CLI may call). */
function trellis(args: string[], dataDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(root, 'node_modules/.bin/tsx'), [join(root, 'packages/cli/src/main.ts'), ...args], {
      cwd: work,
      env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', TRELLIS_DATA_DIR: dataDir, TRELLIS_SECRETS_KEY: SECRETS_KEY },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The embedded database and in-process engine on `dataDir`, as `npm start` runs them. */
async function startTrellis(dataDir: string): Promise<{ booted: Booted; close(): Promise<void> }> {
  const booted = await boot(loadEngineEnv({ TRELLIS_DATA_DIR: dataDir, TRELLIS_SECRETS_KEY: SECRETS_KEY }));
  const running = startInProcess(booted.engine, { pools: ['default'], concurrency: 8 });
  return {
    booted,
    async close() {
      await running.close();
      await booted.close();
    },
  };
}

/** Serves the REST API of `booted` on a free local port, as the web server does. */
async function serveRest(booted: Booted): Promise<{ url: string; server: Server }> {
  const env = { engine: () => Promise.resolve(booted.engine), session: () => Promise.resolve(null), database: () => Promise.resolve(booted.handle) };
  const server = createServer((req, res) => {
    const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method, headers: req.headers as Record<string, string> });
    void handleRest(env, request).then(async (answer) => {
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

type Row = { id: string; status: string; member: string };
const messagesOf = (booted: Booted, runId: string) =>
  rows<Row>(booted.handle.db, sql`select id, status, member from messages where run_id = ${runId} order by id`);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('trellis backup and restore', () => {
  it('snapshots a running Trellis mid-run, restores into a fresh install, and the run resumes to done with nothing lost', async () => {
    const trellisA = await startTrellis(first);
    let runId: string;
    let before: Row[];
    let token: string;
    try {
      const { db } = trellisA.booted.handle;
      const saved = await saveMesh(db, { definition });
      if (!saved.ok) throw new Error(saved.message);
      const admin = await addUser(db, { email: 'admin@backup.test', role: 'admin', password: 'backup-test-password' });
      token = (await createPersonalToken(db, { id: admin.id, email: admin.email, role: 'admin' }, { name: 'backup', scope: 'admin', expiresInDays: 1 })).token;
      const viewer = await addUser(db, { email: 'viewer@backup.test', role: 'viewer', password: 'backup-test-password' });
      const viewerToken = (await createPersonalToken(db, { id: viewer.id, email: viewer.email, role: 'viewer' }, { name: 'v', scope: 'read', expiresInDays: 1 })).token;
      ({ runId } = await startRun(trellisA.booted.engine, { meshId: saved.meshId, input: { text: INPUT } }));
      // Both pages' joined lines parked: everything before the approvals is done, and nothing after can start.
      for (;;) {
        const [p] = await rows<{ n: number }>(db, sql`select count(*)::int as n from approvals where run_id = ${runId} and status = 'pending'`);
        if (p?.n === 2) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      before = await messagesOf(trellisA.booted, runId);
      expect(before.filter((m) => m.status === 'parked').map((m) => m.member)).toEqual(['join-lines', 'join-lines']);

      const { url, server } = await serveRest(trellisA.booted);
      try {
        // Asked of the data directory, the command is refused, naming the process that holds it and how
        // to ask that process instead; asked of the server, it gets the snapshot (the two run side by side).
        const [held, backedUp] = await Promise.all([
          trellis(['backup', '--output', join(work, 'never.backup')], first),
          trellis(['backup', '--output', backupFile, '--url', url, '--token', token, '--json'], first),
        ]);
        expect(held.code).toBe(2);
        expect(held.stderr).toContain(`process ${process.pid} has it open`);
        expect(held.stderr).toContain('--url');
        expect(existsSync(join(work, 'never.backup'))).toBe(false);
        expect(backedUp.stderr).not.toMatch(/trellis:/);
        expect(backedUp.code).toBe(0);
        expect(JSON.parse(backedUp.stdout)).toMatchObject({ output: backupFile, bytes: readFileSync(backupFile).length });
        const notAdmin = await fetch(`${url}/api/v1/admin/backup`, { headers: { authorization: `Bearer ${viewerToken}` } });
        expect(notAdmin.status).toBe(403);

        // Restoring under a running Trellis would pull its database away: refused, naming the process.
        const refusedRestore = await trellis(['restore', backupFile], first);
        expect(refusedRestore.code).toBe(2);
        expect(refusedRestore.stderr).toContain(`process ${process.pid} has it open`);
      } finally {
        server.close();
      }
      const audit = await rows<{ action: string; actor_email: string }>(db, sql`select action, actor_email from audit_log where action = 'backup.create'`);
      expect(audit).toEqual([{ action: 'backup.create', actor_email: 'admin@backup.test' }]);
      // The snapshot was taken while the run was provably unfinished.
      expect((await waitForRun(db, runId, { timeoutMs: 1 })).status).toBe('running');
    } finally {
      await trellisA.close();
    }

    // Into a fresh install, and over the first one, which is kept beside it.
    const [restored, over] = await Promise.all([trellis(['restore', backupFile, '--json'], fresh), trellis(['restore', backupFile, '--json'], first)]);
    expect(restored.stderr).not.toMatch(/trellis:/);
    expect(restored.code).toBe(0);
    expect(JSON.parse(restored.stdout)).toEqual({ dataDir: fresh, previous: null });
    expect(over.code).toBe(0);
    const previous = (JSON.parse(over.stdout) as { previous: string }).previous;
    expect(previous).toMatch(/pglite\.before-restore-/);
    expect(readdirSync(join(work, 'first'))).toContain(previous.split('/').pop());

    const trellisB = await startTrellis(fresh);
    try {
      const { db } = trellisB.booted.handle;
      expect(await messagesOf(trellisB.booted, runId)).toEqual(before);
      const pending = await rows<{ id: string }>(db, sql`select id from approvals where run_id = ${runId} and status = 'pending' order by id`);
      const [admin] = await rows<{ id: string }>(db, sql`select id from users where email = 'admin@backup.test'`);
      for (const a of pending) await decideApproval(trellisB.booted.engine, { approvalId: a.id, decision: 'approve', userId: admin?.id ?? '' });
      const done = await waitForRun(db, runId, { timeoutMs: 30_000 });
      expect(done.status).toBe('done');
      expect(done.output).toEqual({ text: INPUT });
      await expectExactDone(db, runId);
    } finally {
      await trellisB.close();
    }
  }, 240_000);
});
