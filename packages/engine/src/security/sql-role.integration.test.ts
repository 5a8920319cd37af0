/**
 * Takeover 3 of issue 11: the `trellis` SQL connection ran as the database owner (a superuser on
 * PGlite), so a read-only step read `users.password_hash` and a write step promoted a user to
 * admin. Now it runs as `trellis_mesh`, which owns only `mesh_data`; each known way out of that
 * role is tried here too (docs/security.md). On Postgres and on the embedded database alike.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { saveOrThrow, useWorlds, type TestWorld } from '../../test/harness';
import { listMessages } from '../runs/list-messages';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { rows } from '../kernel/sql';

const flow = (steps: unknown[]) => ({ format: 'trellis.mesh/v1', name: 'sql-attack', members: [{ id: 'flow', kind: 'workflow', head: true, steps }], channels: [] });
const step = (query: string, write = false) => ({ type: 'sql', connection: 'trellis', query, write });

describe.each(['postgres', 'pglite'] as const)('takeover 3: the trellis SQL connection on %s', (kind) => {
  const worlds = useWorlds();

  async function open(): Promise<TestWorld> {
    const w = await worlds.open({ backoffMs: 50, attempts: 1 }, kind);
    worlds.start(w, { pools: ['default'] });
    await w.engine.db.execute(sql`insert into users (id, email, name, password_hash, role) values ('u-admin', 'admin@example.com', 'Admin', 'scrypt$aa$bb', 'admin'), ('u-eve', 'eve@example.com', 'Eve', 'scrypt$cc$dd', 'designer')`);
    return w;
  }

  async function run(w: TestWorld, query: string, write = false) {
    const meshId = await saveOrThrow(w, flow([step(query, write)]));
    const { runId } = await startRun(w.engine, { meshId, input: { payload: {} } });
    const view = await waitForRun(w.engine.db, runId, { timeoutMs: 60_000 });
    const dead = await listMessages(w.engine.db, { runId, status: 'dead' });
    return { status: view.status, output: view.output, error: dead.items[0]?.error ?? '' };
  }

  async function eve(w: TestWorld) {
    return (await rows<{ role: string }>(w.engine.db, sql`select role from users where id = 'u-eve'`))[0]?.role;
  }

  it('refuses reading password hashes and promoting a user, and every way out of the role', async () => {
    const w = await open();
    const read = await run(w, 'select email, password_hash from public.users');
    expect(read.status).toBe('failed');
    expect(read.error).toContain('permission denied for table users');
    expect(JSON.stringify(read.output ?? null)).not.toContain('scrypt$');

    const promote = await run(w, "update public.users set role = 'admin' where id = 'u-eve'", true);
    expect(promote.error).toContain('permission denied for table users');
    const create = await run(w, "insert into public.users (id, email, name, password_hash, role) values ('u-x', 'x@example.com', 'X', 'h', 'admin')", true);
    expect(create.error).toContain('permission denied for table users');

    // Ways out of a role set inside a transaction: each is refused by the revocations of migration 0005.
    const viaSetConfig = await run(w, "select set_config('role', 'none', false)");
    expect(viaSetConfig.error).toContain('permission denied for function set_config');
    // A DO block is no data statement: refused when the mesh is saved (and plpgsql is revoked too, see assertMeshRole).
    await expect(run(w, "do $$ begin reset role; update public.users set role = 'admin' where id = 'u-eve'; end $$", true)).rejects.toThrow(/found a DO statement/);
    const viaFunction = await run(w, "create function mesh_data.up() returns text language sql set role = none as $$ update public.users set role = 'admin' where id = 'u-eve' returning role $$", true);
    expect(viaFunction.error).toContain('permission denied for language sql');
    // A temporary table named users would shadow Trellis's own in the session; a search path set
    // for the session would outlive the step. Neither survives the step.
    const shadow = await run(w, 'create temporary table users (id text, email text, name text, password_hash text, role text)', true);
    expect(shadow.error).toContain('permission denied to create temporary tables');
    await run(w, 'create table mesh_data.users (id text, email text, name text, password_hash text, role text)', true);
    await expect(run(w, 'set search_path = mesh_data, public')).rejects.toThrow(/found a SET statement/);
    // Trellis's own queries still see its own users table (on the embedded database's one session too).
    expect(await rows(w.engine.db, sql`select count(*)::int as n from users`)).toEqual([{ n: 2 }]);
    expect(await eve(w)).toBe('designer');
  }, 120_000);

  it('keeps honest steps working in the schema mesh_data', async () => {
    const w = await open();
    const created = await run(w, 'create table if not exists ledger (id text primary key, amount int)', true);
    expect(created.status).toBe('done');
    expect((await run(w, "insert into ledger values ('L-1', 7) returning id", true)).output).toEqual({ rows: [{ id: 'L-1' }] });
    expect((await run(w, 'select current_user as who, amount from ledger')).output).toEqual({ rows: [{ who: 'trellis_mesh', amount: 7 }] });
    expect(await rows(w.engine.db, sql`select to_regclass('public.ledger') as t`)).toEqual([{ t: null }]);
  }, 120_000);
});
