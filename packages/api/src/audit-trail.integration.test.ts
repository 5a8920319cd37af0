/**
 * Every privileged action lands in the sealed audit trail, with who did it and to what, in the
 * transaction of the action: mesh save and import, run start, cancel and re-open, approval
 * decisions, Action Center actions, and changes to secrets, connections, egress, tools, users,
 * roles and tokens. Each is performed here through its tRPC procedure (or the use case the REST
 * route calls) by a person of the role that may, on real Postgres and Redis; then the chain verifies.
 */
import { describe, expect, it } from 'vitest';
import { listActionItems } from '@trellis/engine/ops/action-items';
import { listAudit, type AuditEntry } from '@trellis/engine/audit/list-audit';
import { verifyAudit } from '@trellis/engine/audit/verify';
import { startRun } from '@trellis/engine/runs/start-run';
import { waitForRun } from '@trellis/engine/runs/wait-run';
import { addUser } from '@trellis/engine/users/add-user';
import { useWorlds, type TestWorld } from '../../engine/test/harness';
import { appRouter } from './root';

const worlds = useWorlds();

const mesh = (name: string, members: unknown[], channels: unknown[] = []) => ({ format: 'trellis.mesh/v1', name, members, channels });
const REVIEWED = mesh(
  'audit-reviewed',
  [
    { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
    { id: 'review', kind: 'workflow', approval: 'required', steps: [{ type: 'pass' }] },
  ],
  [{ from: 'head', to: 'review' }],
);
const FAILING = mesh(
  'audit-failing',
  [
    { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
    { id: 'cut', kind: 'workflow', steps: [{ type: 'split', by: 'word', field: 'missing' }] },
  ],
  [{ from: 'head', to: 'cut' }],
);

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function people(w: TestWorld) {
  const caller = async (role: 'admin' | 'designer' | 'operator') => {
    const u = await addUser(w.engine.db, { email: `${role}@audit.test`, role, password: 'audit-password' });
    return { id: u.id, email: u.email, trpc: appRouter.createCaller({ session: { userId: u.id, sessionVersion: 1 }, db: w.engine.db, engine: w.engine }) };
  };
  return { admin: await caller('admin'), designer: await caller('designer'), operator: await caller('operator') };
}

describe('the audit trail records every privileged action', () => {
  it('with its actor, action and target, and the chain verifies', async () => {
    const w = await worlds.open({ tickMs: 50 });
    worlds.start(w, { pools: ['default'] });
    const { admin, designer, operator } = await people(w);

    // Meshes: import, then save a new version.
    const imported = await designer.trpc.meshes.import({ text: JSON.stringify(REVIEWED) });
    if (!imported.ok) throw new Error(imported.message);
    const saved = await designer.trpc.meshes.save({ meshId: imported.meshId, baseVersion: 1, definition: { ...REVIEWED, description: 'v2' } });
    expect(saved).toMatchObject({ ok: true, version: 2 });
    const failing = await designer.trpc.meshes.import({ text: JSON.stringify(FAILING) });
    if (!failing.ok) throw new Error(failing.message);

    // Runs: start (the use case POST /api/v1/meshes/{id}/runs calls), approve, cancel, re-open.
    const approved = await startRun(w.engine, { meshId: imported.meshId, input: { text: 'approve me' }, userId: operator.id });
    const cancelled = await startRun(w.engine, { meshId: imported.meshId, input: { text: 'cancel me' }, userId: operator.id });
    const approvalOf = (runId: string) =>
      waitFor(`the approval of ${runId}`, async () => (await listActionItems(w.engine.db, { kind: 'approval' })).find((i) => i.approval?.runId === runId));
    const item = await approvalOf(approved.runId);
    await operator.trpc.actions.act({ itemId: item.id, action: 'acknowledge' });
    const decision = await operator.trpc.actions.decide({ approvalId: item.approval?.id ?? '', decision: 'approve', comment: 'fine' });
    await approvalOf(cancelled.runId);
    await operator.trpc.runs.cancel({ runId: cancelled.runId, reason: 'wrong input' });

    const broken = await startRun(w.engine, { meshId: failing.meshId, input: { text: 'a b' }, userId: designer.id });
    await waitForRun(w.engine.db, broken.runId, { timeoutMs: 60_000 });
    const reopened = await operator.trpc.runs.reopen({ runIds: [broken.runId], version: 'pinned' });
    expect(reopened.reopened).toHaveLength(1);
    const failure = await waitFor('the failure item', async () => (await listActionItems(w.engine.db, { kind: 'failure' }))[0]);
    await waitForRun(w.engine.db, broken.runId, { timeoutMs: 60_000 });
    await operator.trpc.actions.act({ itemId: failure.id, action: 'resolve', comment: 'known split field' });

    // Policy: secrets, connections, egress, tools, users, roles, tokens.
    await admin.trpc.secrets.set({ name: 'SEARCH_KEY', value: 'the-value-is-never-recorded', hosts: ['api.search.test'] });
    await admin.trpc.secrets.set({ kind: 'connection', name: 'CRM_DB', value: 'postgres://crm.test/crm' });
    await admin.trpc.secrets.remove({ name: 'SEARCH_KEY' });
    await admin.trpc.egress.allow({ pattern: 'api.search.test' });
    await admin.trpc.egress.remove({ pattern: 'api.search.test' });
    await admin.trpc.tools.put({ name: 'search', config: { transport: 'http', url: 'https://tools.test/mcp' } });
    await admin.trpc.tools.remove({ name: 'search' });
    await admin.trpc.users.add({ email: 'vera@audit.test', role: 'viewer' });
    await admin.trpc.users.setRole({ user: 'vera@audit.test', role: 'operator' });
    const token = await operator.trpc.tokens.create({ name: 'script', scope: 'run', expiresInDays: 30 });
    await operator.trpc.tokens.revoke({ id: token.id });

    const entries = await listAudit(w.engine.db, { limit: 1000 });
    const find = (action: string, target: string): AuditEntry => {
      const e = entries.find((x) => x.action === action && x.target === target);
      if (!e) throw new Error(`no ${action} entry for ${target}; the trail has ${entries.map((x) => `${x.action} ${x.target}`).join(', ')}`);
      return e;
    };
    const expected: [string, string, string][] = [
      ['mesh.import', 'audit-reviewed', designer.email],
      ['mesh.save', 'audit-reviewed', designer.email],
      ['mesh.import', 'audit-failing', designer.email],
      ['run.start', approved.runId, operator.email],
      ['run.start', cancelled.runId, operator.email],
      ['action_item.acknowledge', item.id, operator.email],
      ['approval.approve', decision.approvalId, operator.email],
      ['run.cancel', cancelled.runId, operator.email],
      ['run.start', broken.runId, designer.email],
      ['run.reopen', broken.runId, operator.email],
      ['action_item.resolve', failure.id, operator.email],
      ['secret.set', 'SEARCH_KEY', admin.email],
      ['connection.set', 'CRM_DB', admin.email],
      ['secret.remove', 'SEARCH_KEY', admin.email],
      ['egress.allow', 'api.search.test', admin.email],
      ['egress.remove', 'api.search.test', admin.email],
      ['tool.put', 'search', admin.email],
      ['tool.remove', 'search', admin.email],
      ['user.add', 'vera@audit.test', admin.email],
      ['user.role', 'vera@audit.test', admin.email],
      ['token.create', token.id, operator.email],
      ['token.revoke', token.id, operator.email],
    ];
    expect(expected.map(([action, target]) => [action, target, find(action, target).actorEmail])).toEqual(expected);
    expect(find('mesh.save', 'audit-reviewed').detail).toEqual({ meshId: imported.meshId, version: 2, created: false });
    expect(find('run.cancel', cancelled.runId).detail).toMatchObject({ reason: 'wrong input' });
    expect(find('approval.approve', decision.approvalId).detail).toMatchObject({ runId: approved.runId, comment: 'fine' });
    expect(JSON.stringify(entries)).not.toContain('the-value-is-never-recorded');
    expect(JSON.stringify(entries)).not.toContain('crm.test');
    expect(await verifyAudit(w.engine.db)).toMatchObject({ ok: true, entries: entries.length });
  }, 180_000);
});
