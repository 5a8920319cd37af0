/**
 * The claims example end to end (issue 4): the three sample emails through
 * examples/meshes/claims-intake.json with a local OpenAI-compatible model server, the
 * records-check example service running as its own process and speaking REST through the sdk,
 * the unsure file approved by a person, and the rows the SQL step wrote to the claims table.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { checkMesh } from '@trellis/engine/meshes/check-mesh';
import { decideApproval } from '@trellis/engine/approvals/decide';
import { closeStepResources } from '@trellis/engine/runtime/close-step-resources';
import { getMesh } from '@trellis/engine/meshes/get-mesh';
import { seedExampleMeshes } from '@trellis/engine/meshes/seed-examples';
import { startRun } from '@trellis/engine/runs/start-run';
import { waitForRun } from '@trellis/engine/runs/wait-run';
import { agentRunner } from '@trellis/engine/runtime/agent-runner';
import type { Engine } from '@trellis/engine/engine';
import { startInProcess } from '@trellis/engine/runtime/in-process';
import { addService } from '@trellis/engine/services/registry';
import { rows } from '@trellis/engine/sql';
import { ensureAdmin } from '@trellis/engine/users/ensure-admin';
import { startClaimsModel, type ClaimsModel } from '../../engine/test/claims-model';
import { allowInternal, openWorld, saveOrThrow, storeSecret, type TestWorld } from '../../engine/test/harness';
import { handleRest } from './rest/routes';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(`${REPO}${path}`);
const SERVICE_MAIN = `${REPO}examples/services/records-check/main.ts`;

type MeshFile = { members: { id: string; steps?: Record<string, unknown>[] }[] } & Record<string, unknown>;

/** claims-intake with every agent step on the local model server instead of the demo. */
function onModelServer(model: ClaimsModel): MeshFile {
  const mesh = JSON.parse(read('examples/meshes/claims-intake.json').toString('utf8')) as MeshFile;
  for (const m of mesh.members) {
    for (const step of m.steps ?? []) {
      if (step.type === 'agent') Object.assign(step, { model: 'keywords', provider: { baseUrl: model.baseUrl, apiKeySecret: 'CLAIMS_MODEL_KEY' } });
    }
  }
  return mesh;
}

/** The web app's /api/v1 REST routes, served on a local port for the service process. */
async function serveServiceRoutes(engine: Engine): Promise<{ url: string; server: Server }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      // A client that hangs up (the service stopping mid long-poll) ends the claim's wait, as in the web app.
      const gone = new AbortController();
      res.on('close', () => gone.abort());
      const request = new Request(url, {
        method: req.method ?? 'GET',
        signal: gone.signal,
        headers: Object.entries(req.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as [string, string]] : [])),
        ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
      });
      const answer = handleRest({ engine: () => Promise.resolve(engine), session: () => Promise.resolve(null) }, request);
      void answer.then(async (r) => {
        res.writeHead(r.status, Object.fromEntries(r.headers)).end(Buffer.from(await r.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Starts examples/services/records-check/main.ts; resolves once it says it is serving. */
async function startRecordsCheck(baseUrl: string, apiKey: string): Promise<{ proc: ChildProcess; output: () => string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', SERVICE_MAIN], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', TRELLIS_URL: baseUrl, TRELLIS_SERVICE_KEY: apiKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const collect = (b: Buffer) => (out += b.toString());
  proc.stdout?.on('data', collect);
  proc.stderr?.on('data', collect);
  for (let i = 0; !out.includes('records-check serving'); i++) {
    if (proc.exitCode !== null || i > 300) throw new Error(`records-check did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { proc, output: () => out };
}

async function pendingApproval(engine: Engine, runId: string, timeoutMs: number): Promise<string> {
  for (const until = Date.now() + timeoutMs; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
    const [a] = await rows<{ id: string }>(engine.db, sql`select id from approvals where run_id = ${runId} and status = 'pending'`);
    if (a) return a.id;
  }
  const [run] = await rows<{ status: string; cause_message: string | null }>(engine.db, sql`select status, cause_message from runs where id = ${runId}`);
  throw new Error(`no approval became pending in run ${runId} within ${timeoutMs} ms (run ${run?.status ?? 'missing'}: ${run?.cause_message ?? 'no cause'})`);
}

interface ClaimRow {
  claim_id: string;
  sender: string;
  subject: string;
  policyholder: string | null;
  policy_number: string | null;
  date_of_loss: string | null;
  type_of_loss: string | null;
  amount_claimed: string | null;
  bill_total: string | null;
  bill_lines: number | null;
  bill_totals_match: boolean | null;
  police_report: string | null;
  records_check: { found: boolean; station?: string } | null;
  reviewed: boolean;
  files: { file_name: string | null; kind: string | null; confidence: number | null; sha256: string | null }[];
}

describe('claims example', () => {
  let world: TestWorld | undefined;
  const cleanups: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await closeStepResources();
    await world?.close();
    world = undefined;
  });

  it('writes one claims row per email, with the model server, the records-check service and a review', async () => {
    const model = await startClaimsModel();
    cleanups.push(() => model.close());
    // The claims table goes in Trellis's own database (the SQL steps' connection `trellis`): no URL to set.
    world = await openWorld('postgres', { runAgent: agentRunner() });
    const engine = world.engine;
    // The model server is local: an admin allows it by name, and its key is a secret for that host only.
    const modelHost = new URL(model.baseUrl).host;
    await allowInternal(world, modelHost);
    await storeSecret(world, 'secret', 'CLAIMS_MODEL_KEY', 'local-key', [modelHost]);
    await saveOrThrow(world, JSON.parse(read('examples/meshes/bill-lines.json').toString('utf8')));
    await saveOrThrow(world, onModelServer(model));
    const { apiKey } = await addService(engine.db, { name: 'records-check' });
    const routes = await serveServiceRoutes(engine);
    cleanups.push(() => new Promise((r) => routes.server.close(r)));
    const service = await startRecordsCheck(routes.url, apiKey);
    cleanups.push(async () => {
      const exited = new Promise((r) => service.proc.once('exit', r));
      service.proc.kill('SIGTERM');
      await exited;
    });
    const runtime = startInProcess(engine, { poolRefreshMs: 200 });
    cleanups.push(() => runtime.close());
    await ensureAdmin(engine.db, { email: 'reviewer@claims.example', password: 'a-long-test-password' });
    const [reviewer] = await rows<{ id: string }>(engine.db, sql`select id from users where email = 'reviewer@claims.example'`);

    const runs: Record<string, string> = {};
    for (const name of ['clm-1001.eml', 'clm-1002.eml', 'clm-1003.eml']) {
      const { runId } = await startRun(engine, { meshName: 'claims-intake', input: { name, bytes: read(`examples/claims/${name}`) } });
      runs[name] = runId;
    }
    // CLM-1003's only file is a note the classifier is unsure of: it waits for a person.
    const approvalId = await pendingApproval(engine, runs['clm-1003.eml'] ?? '', 60_000);
    expect((await waitForRun(engine.db, runs['clm-1003.eml'] ?? '', { timeoutMs: 100 })).status).toBe('running');
    await decideApproval(engine, { approvalId, decision: 'approve', userId: reviewer?.id ?? '' });
    for (const [name, runId] of Object.entries(runs)) {
      const view = await waitForRun(engine.db, runId, { timeoutMs: 90_000 });
      expect({ name, status: view.status, cause: view.cause }).toEqual({ name, status: 'done', cause: null });
    }

    const written = await rows<ClaimRow>(engine.db, sql`select * from mesh_data.claims order by claim_id`);
    expect(written.map((r) => r.claim_id)).toEqual(['CLM-1001', 'CLM-1002', 'CLM-1003']);
    const [a, b, c] = written;
    expect(a).toMatchObject({
      sender: 'marta.ilves@example.net',
      policyholder: 'Marta Ilves',
      policy_number: 'HM-448812',
      date_of_loss: '2026-10-14',
      type_of_loss: 'personal injury at home',
      amount_claimed: '515.50',
      bill_total: '515.50',
      bill_lines: 3,
      bill_totals_match: true,
      police_report: null,
      reviewed: false,
    });
    expect(a?.files.map((f) => [f.file_name, f.kind, f.confidence])).toEqual([
      ['claim-form.txt', 'claim form', 0.95],
      ['medical-bill.txt', 'medical bill', 0.95],
    ]);
    expect(b).toMatchObject({
      sender: 'jonas.rebane@example.org',
      policyholder: 'Jonas Rebane',
      policy_number: 'HM-90317',
      amount_claimed: '1240.00',
      bill_total: null,
      police_report: 'PR-2026-118734',
      records_check: { found: true, station: 'Harbour District Police Station' },
      reviewed: false,
    });
    expect(b?.files.map((f) => [f.file_name, f.kind])).toEqual([
      ['claim-form.txt', 'claim form'],
      ['police-report.txt', 'police report'],
    ]);
    expect(c).toMatchObject({ sender: 'lena.koort@example.com', policyholder: null, reviewed: true });
    expect(c?.files.map((f) => [f.file_name, f.kind, f.confidence])).toEqual([['note-from-lena.txt', 'claim form', 0.55]]);
    expect(service.output()).toContain('report PR-2026-118734 found');
    // Every agent call went to the local server: two classifications and one extraction per claim form.
    expect(model.answers.filter((x) => x.schema === 'classify')).toHaveLength(5);
    expect(model.answers.filter((x) => x.schema === 'extract')).toHaveLength(2);

    // The same email again: the SQL step upserts, so the claim is still one row.
    const again = await startRun(engine, { meshName: 'claims-intake', input: { name: 'clm-1002.eml', bytes: read('examples/claims/clm-1002.eml') } });
    expect((await waitForRun(engine.db, again.runId, { timeoutMs: 60_000 })).status).toBe('done');
    const counted = await rows<{ n: number }>(engine.db, sql`select count(*)::int as n from mesh_data.claims where claim_id = 'CLM-1002'`);
    expect(counted[0]?.n).toBe(1);
  }, 240_000);

  it('assembles a claim from the files that arrived when one file is routed nowhere, and the trail shows the skipped one', async () => {
    world = await openWorld('postgres', { runAgent: agentRunner() });
    await saveOrThrow(world, JSON.parse(read('examples/meshes/bill-lines.json').toString('utf8')));
    // A variant where only unsure files go to review: a confident `other` has no channel to take.
    const mesh = JSON.parse(read('examples/meshes/claims-intake.json').toString('utf8')) as { channels: { from: string; to: string; when?: string }[] };
    const review = mesh.channels.find((c) => c.to === 'review');
    if (!review) throw new Error('claims-intake has no review channel');
    review.when = 'confidence < 0.7';
    await saveOrThrow(world, mesh);
    const runtime = startInProcess(world.engine, { poolRefreshMs: 200 });
    cleanups.push(() => runtime.close());
    const attachment = (name: string, text: string) =>
      [`--b1`, `Content-Type: text/plain; charset=utf-8; name="${name}"`, `Content-Disposition: attachment; filename="${name}"`, '', text, ''].join('\r\n');
    const email = [
      'From: Mari Tamm <mari.tamm@example.net>',
      'Subject: Claim CLM-1004: car park damage',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      attachment('claim-form.txt', 'CLAIM FORM\r\nPolicyholder: Mari Tamm\r\nAmount claimed: 300'),
      attachment('photo-note.txt', 'A photo of the other car in the car park.'),
      '--b1--',
      '',
    ].join('\r\n');
    const { runId } = await startRun(world.engine, { meshName: 'claims-intake', input: { name: 'clm-1004.eml', text: email } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 60_000 });
    expect({ status: view.status, cause: view.cause }).toEqual({ status: 'done', cause: null });
    const [row] = await rows<ClaimRow>(world.engine.db, sql`select * from mesh_data.claims where claim_id = 'CLM-1004'`);
    expect(row?.files.map((f) => [f.file_name, f.kind])).toEqual([['claim-form.txt', 'claim form']]);
    const trail = await rows<{ member: string; error: string; file: string }>(
      world.engine.db,
      sql`select member, error, payload->>'file_name' as file from messages where run_id = ${runId} and status = 'filtered'`,
    );
    expect(trail.map((t) => [t.member, t.file])).toEqual([['classify', 'photo-note.txt']]);
    expect(trail[0]?.error).toContain("no channel's condition held");
    expect(view.counts.filtered).toBe(1);
  }, 120_000);

  it.each(['pglite', 'postgres'] as const)('is seeded with the examples, runs on the demo model as the web app does on %s with no URL set, and rejects an input that is not an email', async (kind) => {
    // The runner the web app and the workers use: `demo` is the deterministic schema-filling demo.
    // No settings: the SQL steps write to Trellis's own database (schema mesh_data), embedded or Postgres.
    world = await openWorld(kind, { runAgent: agentRunner() });
    const seeded = await seedExampleMeshes(world.engine.db, `${REPO}examples/meshes`);
    expect(seeded.seeded).toEqual(expect.arrayContaining(['bill-lines', 'claims-intake']));
    expect(seeded.refused).toEqual([]);
    const claims = await getMesh(world.engine.db, { name: 'claims-intake' });
    if (!claims) throw new Error('claims-intake was not seeded');
    expect((await checkMesh(world.engine.db, claims.definition)).findings.filter((f) => f.severity === 'error')).toEqual([]);
    const runtime = startInProcess(world.engine, { poolRefreshMs: 200 });
    cleanups.push(() => runtime.close());

    // The demo names the kind the text mentions first, with confidence 0.9: no review, no service needed for CLM-1001.
    const demo = await startRun(world.engine, { meshName: 'claims-intake', input: { name: 'clm-1001.eml', bytes: read('examples/claims/clm-1001.eml') } });
    expect((await waitForRun(world.engine.db, demo.runId, { timeoutMs: 60_000 })).status).toBe('done');
    const [row] = await rows<ClaimRow>(world.engine.db, sql`select * from mesh_data.claims`);
    expect(row).toMatchObject({ claim_id: 'CLM-1001', bill_total: '515.50', bill_lines: 3, bill_totals_match: true, reviewed: false });
    expect(row?.files.map((f) => [f.file_name, f.kind, f.confidence])).toEqual([
      ['claim-form.txt', 'claim form', 0.9],
      ['medical-bill.txt', 'medical bill', 0.9],
    ]);

    const { runId } = await startRun(world.engine, { meshName: 'claims-intake', input: { name: 'notes.eml', text: 'Dear team,\n\nno headers here.\n' } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    expect(view.status).toBe('failed');
    expect(view.cause).toBe('input_rejected');
    expect(view.causeMember).toBe('intake');
    expect(view.causeMessage).toMatch(/intake cannot read the email: it has no From header/);
  }, 120_000);
});
