/**
 * Attacker trial: a SQL step on `trellis` ran `set session authorization trellis_mesh` (or a
 * session-wide `set search_path`), which outlived the step on the embedded database's one session,
 * so every later Trellis query ran as trellis_mesh. SQL steps now take data and schema statements
 * only, refused when the mesh is saved and again when the step runs; a step's transaction resets
 * the session before COMMIT, and the session's identity is checked after every embedded step.
 */
import { sql } from 'drizzle-orm';
import { openDb } from '@trellis/db/client';
import { describe, expect, it } from 'vitest';
import { SqlStepSchema, type SqlStep } from '@trellis/mesh/schema';
import { saveMesh } from '../meshes/save-mesh';
import { runSqlStep } from '../members/workflow/steps/sql';
import { afterSessionStep, beforeSessionStep } from '../policy/sql-session';
import { rows } from '../kernel/sql';
import { useWorlds, type TestWorld } from '../../test/harness';

const ATTACKS = [
  'set session authorization trellis_mesh',
  'set search_path = mesh_data, public',
  '  /* a comment */ -- and another\n (SET role none)',
  'reset all',
  'discard all',
  'commit',
  'begin',
  'copy (select 1) to program $$id$$',
  'do $$ begin null; end $$',
  'prepare p as select 1',
  'listen x',
  'load $$plpgsql$$',
];

const flow = (query: string) => ({
  format: 'trellis.mesh/v1',
  name: 'session-attack',
  members: [{ id: 'flow', kind: 'workflow', head: true, steps: [{ type: 'sql', connection: 'trellis', write: true, query }] }],
  channels: [],
});

async function identity(w: TestWorld) {
  return rows<{ s: string; c: string; p: string }>(w.engine.db, sql`select session_user::text as s, current_user::text as c, current_setting('search_path') as p`);
}

describe.each(['pglite', 'postgres'] as const)('session statements in SQL steps on %s', (kind) => {
  const worlds = useWorlds();

  it('refuses them when the mesh is saved, naming the field, and when the step runs, naming the policy', async () => {
    const w = await worlds.open({}, kind);
    const before = await identity(w);
    for (const query of ATTACKS) {
      const saved = await saveMesh(w.engine.db, { definition: flow(query) });
      expect(saved.ok, query).toBe(false);
      const finding = JSON.stringify(saved.ok ? null : saved.findings);
      expect(finding, query).toContain('query');
      expect(finding, query).toContain('not allowed');

      // A step that skipped the mesh check (an old stored version) is refused at run time too.
      const step = { type: 'sql', connection: 'trellis', query, params: [], write: true, into: 'rows', timeoutMs: 5_000 } satisfies SqlStep;
      await expect(runSqlStep('flow', step, {}, { policy: w.engine.guard, db: w.engine.db }), query).rejects.toThrow(/refused by the sql-role policy: its query is not allowed/);
    }
    expect(await identity(w)).toEqual(before);
    expect(before[0]?.c).not.toBe('trellis_mesh');
  }, 120_000);

  it('still runs honest statements, with comments and parentheses in front', async () => {
    const w = await worlds.open({}, kind);
    const step = (query: string) => SqlStepSchema.parse({ type: 'sql', connection: 'trellis', write: true, query });
    const ctx = { policy: w.engine.guard, db: w.engine.db };
    await runSqlStep('flow', step('-- ledger\ncreate table ledger (id int)'), {}, ctx);
    await runSqlStep('flow', step('/* one */ insert into ledger values (1)'), {}, ctx);
    expect(await runSqlStep('flow', step('(select id from ledger) union all (values (2))'), {}, ctx)).toEqual({ rows: [{ id: 1 }, { id: 2 }] });
    expect(await runSqlStep('flow', step('with t as (select 3 as id) select id, current_user::text as who from t'), {}, ctx)).toEqual({ rows: [{ id: 3, who: 'trellis_mesh' }] });
    expect((await identity(w))[0]?.c).not.toBe('trellis_mesh');
  }, 120_000);
});

describe('the embedded session check', () => {
  it('turns SQL steps off, loudly, when a step left the session as another role', async () => {
    const handle = await openDb({ dataDir: 'memory://' });
    try {
      const client = (handle.db as unknown as { $client: { query(text: string): Promise<{ rows: unknown[] }>; exec(text: string): Promise<unknown> } }).$client;
      const query = (text: string) => client.query(text);
      await client.exec('create role trellis_mesh nologin');
      await beforeSessionStep(client, query);
      await afterSessionStep(client, query);
      // What the statement check now keeps out; PGlite undoes it neither on RESET, ROLLBACK nor DISCARD ALL.
      await client.exec('set session authorization trellis_mesh');
      await expect(afterSessionStep(client, query)).rejects.toThrow(/refused by the sql-role policy: a SQL step left the database session as trellis_mesh\/trellis_mesh instead of postgres\/postgres/);
      await expect(beforeSessionStep(client, query)).rejects.toThrow(/SQL steps on trellis are off until Trellis restarts/);
    } finally {
      await handle.close();
    }
  });
});
