/**
 * SQL steps on the reserved connection `trellis`: Trellis's own database, with no URL, on the
 * embedded database (one connection, every query queued behind the open transaction) and on
 * Postgres alike, through the worker pool as a run would.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { saveOrThrow, type TestWorld, useWorlds, expectExactDone } from '../../../../test/harness';
import { listMessages } from '../../../runs/list-messages';
import { startRun } from '../../../runs/start-run';
import { waitForRun } from '../../../runs/wait-run';
import { rows } from '../../../kernel/sql';

const mesh = (steps: unknown[]) => ({
  format: 'trellis.mesh/v1',
  name: 'own-database',
  members: [{ id: 'flow', kind: 'workflow', head: true, steps }],
  channels: [],
});

const INSERT = 'insert into ledger (id, entry) values ($1, $2::jsonb) returning id';

describe.each(['pglite', 'postgres'] as const)('SQL steps on the trellis connection (%s)', (kind) => {
  const worlds = useWorlds();

  async function run(w: TestWorld, definition: unknown, input: unknown) {
    const meshId = await saveOrThrow(w, definition);
    const { runId } = await startRun(w.engine, { meshId, input: { payload: input } });
    return waitForRun(w.engine.db, runId, { timeoutMs: 60_000 });
  }

  it('refuses an INSERT in a read-only step, writes with a write step, and reads it back, with no URL set', async () => {
    // No settings at all: `trellis` is the engine's own database, reached as the role trellis_mesh (schema mesh_data).
    const w = await worlds.open({ backoffMs: 50 }, kind);
    worlds.start(w, { pools: ['default'] });
    const create = 'create table if not exists ledger (id text primary key, entry jsonb not null)';

    const createdReadOnly = await run(w, mesh([{ type: 'sql', connection: 'trellis', query: create }]), {});
    expect(createdReadOnly.cause).toBe('step_code_failed');
    expect(await rows(w.engine.db, sql`select to_regclass('mesh_data.ledger') as t`)).toEqual([{ t: null }]);

    const created = await run(w, mesh([{ type: 'sql', connection: 'trellis', write: true, query: create, into: 'created' }]), {});
    await expectExactDone(w.engine.db, created.id);

    const refused = await run(w, mesh([{ type: 'sql', connection: 'trellis', query: INSERT, params: ['id', 'entry'] }]), { id: 'L-1', entry: { amount: 120 } });
    expect(refused.status).toBe('failed');
    expect(refused.cause).toBe('step_code_failed');
    const dead = await listMessages(w.engine.db, { runId: refused.id, status: 'dead' });
    expect(dead.items[0]?.error).toContain('read-only');
    expect(await rows(w.engine.db, sql`select id from mesh_data.ledger`)).toEqual([]);
    // One statement per step: a read-only step cannot end its statement and write after it
    // (a leading COMMIT is refused when the mesh is saved, sql-statement.ts).
    const escaped = await run(w, mesh([{ type: 'sql', connection: 'trellis', query: `select 1; insert into ledger (id, entry) values ('L-0', '{}')` }]), {});
    expect(escaped.cause).toBe('step_code_failed');
    expect(await rows(w.engine.db, sql`select id from mesh_data.ledger`)).toEqual([]);

    const written = await run(
      w,
      mesh([
        { type: 'sql', connection: 'trellis', write: true, query: INSERT, params: ['id', 'entry'], into: 'inserted' },
        { type: 'sql', connection: 'trellis', query: "select id, entry->>'amount' as amount from ledger where id = $1", params: ['id'], into: 'found' },
      ]),
      { id: 'L-2', entry: { amount: 340 } },
    );
    expect({ status: written.status, cause: written.cause }).toEqual({ status: 'done', cause: null });
    expect(written.output).toEqual({ id: 'L-2', entry: { amount: 340 }, inserted: [{ id: 'L-2' }], found: [{ id: 'L-2', amount: '340' }] });
    expect(await rows(w.engine.db, sql`select id, entry from mesh_data.ledger`)).toEqual([{ id: 'L-2', entry: { amount: 340 } }]);

    // A failing query rolls its transaction back and leaves the database usable for the next run.
    const broken = await run(w, mesh([{ type: 'sql', connection: 'trellis', write: true, query: 'select * from no_such_table' }]), {});
    expect(broken.cause).toBe('step_code_failed');
    const after = await run(w, mesh([{ type: 'sql', connection: 'trellis', query: 'select count(*)::int as n from ledger' }]), {});
    expect(after.output).toEqual({ rows: [{ n: 1 }] });
  }, 120_000);
});
