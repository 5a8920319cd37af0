/**
 * The built-in `sql` step: one statement in a transaction of its own, on a named connection of the
 * store or on Trellis's own database as the confined role `trellis_mesh` (policy/sql-role.ts).
 */
import pg from 'pg';
import type { Db } from '@trellis/db/client';
import { IDEMPOTENCY_KEY_PARAM, OWN_DATABASE_CONNECTION, type SqlStep } from '@trellis/mesh/schema';
import { StepError } from '../../../kernel/errors';
import { getField } from '../../../plan/frames';
import { PolicyRefusedError } from '../../../policy/refusal';
import { assertMeshRole, ENTER_MESH_ROLE } from '../../../policy/sql-role';
import { afterSessionStep, beforeSessionStep, LEAVE_MESH_ROLE } from '../../../policy/sql-session';
import { sqlStatementRefusal } from '@trellis/mesh/sql-statement';
import { errorText, withField } from './payload';
import type { EffectStep, StepContext } from './types';

/** An effect step (see {@link runSqlStep}). */
export const sqlStep: EffectStep<'sql'> = {
  lane: 'effect',
  run: (memberId, step, payload, ctx, key) => runSqlStep(memberId, step, payload, ctx, key),
};

const pools = new Map<string, pg.Pool>();

function poolFor(url: string): pg.Pool {
  let pool = pools.get(url);
  if (!pool) {
    pool = new pg.Pool({ connectionString: url, max: 4, idleTimeoutMillis: 10_000, connectionTimeoutMillis: 10_000 });
    pool.on('error', () => undefined); // an idle connection that drops is replaced on next use
    pools.set(url, pool);
  }
  return pool;
}

/** Closes the connection pools SQL steps opened (for tests and shutdown). */
export async function closeSqlPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.end().catch(() => undefined)));
}

/** Postgres error codes (SQLSTATE) that a retry can cure. */
const RETRYABLE_SQLSTATE = new Set(['40001', '40P01', '57P01', '57P03', '08000', '08003', '08006']);

/**
 * Runs a SQL step: a transaction on the connection named by `step.connection` (a named connection
 * of the store, or `trellis` for Trellis's own database as the role `trellis_mesh`, see
 * policy/sql-role.ts), `SET TRANSACTION READ ONLY` unless `write`, a statement timeout
 * of `timeoutMs` (not enforced on the embedded database, which cannot cancel a query), the query
 * with `$n` bound to the payload fields in `params`. The result rows are written to the payload
 * field `into`.
 * @throws PolicyRefusedError for an unknown connection or an unconfined role; StepError
 *   `step_code_failed` (a write in a read-only step, a SQL
 *   error; retryable for serialization failures and dropped connections), `timed_out` when the
 *   statement timeout cancels the query.
 */
export async function runSqlStep(
  memberId: string,
  step: SqlStep,
  payload: unknown,
  ctx: Pick<StepContext, 'policy' | 'db' | 'run'>,
  key = '',
): Promise<unknown> {
  const notData = sqlStatementRefusal(step.query);
  if (notData) throw new PolicyRefusedError('sql-role', `its query is not allowed: ${notData}`);
  const params = step.params.map((path) => (path === IDEMPOTENCY_KEY_PARAM ? key : getField(payload, path)));
  const signal = ctx.run?.signal;
  if (step.connection === OWN_DATABASE_CONNECTION) {
    const client = ownClient(ctx.db);
    await assertMeshRole(client, (text) => client.query(text));
    if (!(client instanceof pg.Pool)) return withField(payload, step.into, await runOnEmbedded(memberId, step, params, client));
    return withField(payload, step.into, await runOnPool(memberId, step, params, client, signal, true));
  }
  const url = await ctx.policy.connectionUrl(step.connection);
  return withField(payload, step.into, await runOnPool(memberId, step, params, poolFor(url), signal));
}

/** The part of an embedded (PGlite) database a SQL step uses: its own transaction, whose queries take `$n` parameters. */
interface EmbeddedClient {
  query(text: string): Promise<{ rows: unknown[] }>;
  exec(text: string): Promise<unknown>;
  transaction<T>(fn: (tx: { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }> }) => Promise<T>): Promise<T>;
}

/** The driver under Trellis's Drizzle database: the `pg` pool on Postgres, the PGlite instance on the embedded database. */
function ownClient(db: Db): pg.Pool | EmbeddedClient {
  const client = (db as unknown as { $client?: unknown }).$client;
  if (client instanceof pg.Pool) return client;
  if (typeof client === 'object' && client !== null && typeof (client as Partial<EmbeddedClient>).transaction === 'function') return client as EmbeddedClient;
  throw new Error('the Trellis database handle exposes neither a pg pool nor an embedded database client');
}

/**
 * Cancels the query running on `client` (`pg_cancel_backend` from a connection of its own, so a
 * busy pool cannot hold the cancel back); never throws.
 */
async function cancelBackend(pool: pg.Pool, client: pg.PoolClient): Promise<void> {
  const pid = (client as pg.PoolClient & { processID?: number }).processID;
  if (pid === undefined) return;
  const canceller = new pg.Client((pool as pg.Pool & { options: pg.ClientConfig }).options);
  try {
    await canceller.connect();
    await canceller.query('select pg_cancel_backend($1)', [pid]);
  } catch {
    // Nothing more to do: the statement timeout still ends the query.
  } finally {
    await canceller.end().catch(() => undefined);
  }
}

/**
 * One SQL step's transaction on a connection from `pool`; returns the result rows. When `signal`
 * aborts (the run ended, or the lease was lost), the running query is cancelled on the server.
 * `asMeshRole` (Trellis's own database): the transaction runs as `trellis_mesh` and the connection
 * is closed afterwards, so nothing the step set on the session reaches Trellis's own queries.
 */
async function runOnPool(memberId: string, step: SqlStep, params: unknown[], pool: pg.Pool, signal?: AbortSignal, asMeshRole = false): Promise<unknown[]> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw new StepError('step_code_failed', memberId, `its SQL step could not connect to ${step.connection}: ${errorText(err)}`, true);
  }
  let broken = asMeshRole;
  const onAbort = () => void cancelBackend(pool, client);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('the step was stopped');
    await client.query('begin');
    if (!step.write) await client.query('set transaction read only');
    if (asMeshRole) for (const statement of ENTER_MESH_ROLE) await client.query(statement);
    await client.query(`set local statement_timeout = ${step.timeoutMs}`);
    // The extended protocol takes one statement only: with none of `params`, the simple protocol
    // would accept `commit; insert …` and run the insert outside the read-only transaction.
    // (`queryMode` is pg's own option since 8.12; its type declarations do not list it yet.)
    const oneStatement: pg.QueryConfig & { queryMode: 'extended' } = { text: step.query, values: params, queryMode: 'extended' };
    const result = await client.query<Record<string, unknown>>(oneStatement);
    // A pooled connection serves the next step too: nothing the step set on its session commits.
    for (const statement of LEAVE_MESH_ROLE) await client.query(statement);
    await client.query('commit');
    return result.rows;
  } catch (err) {
    await client.query('rollback').catch(() => (broken = true));
    throw sqlFailure(memberId, step, err);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    client.release(broken);
  }
}

/**
 * One SQL step's transaction on the embedded database. PGlite serves one connection and queues
 * every query and transaction behind the open one, so this must never run inside another
 * transaction of the same process: heavy steps run before the commit transaction (process/commit.ts).
 * `query` uses the extended protocol, so the step's text is one statement and cannot end the
 * transaction and go on. It runs as `trellis_mesh`; the transaction ends with a reset of the
 * session's authorization and settings (policy/sql-session.ts), `DISCARD ALL` afterwards drops the
 * rest (temporary objects, advisory locks), and the session's identity is then checked.
 */
async function runOnEmbedded(memberId: string, step: SqlStep, params: unknown[], client: EmbeddedClient): Promise<unknown[]> {
  await beforeSessionStep(client, (text) => client.query(text));
  try {
    return await client.transaction(async (tx) => {
      if (!step.write) await tx.query('set transaction read only');
      for (const statement of ENTER_MESH_ROLE) await tx.query(statement);
      const { rows } = await tx.query(step.query, params);
      for (const statement of LEAVE_MESH_ROLE) await tx.query(statement);
      return rows;
    });
  } catch (err) {
    throw sqlFailure(memberId, step, err);
  } finally {
    await client.exec('discard all');
    await afterSessionStep(client, (text) => client.query(text));
  }
}

function sqlFailure(memberId: string, step: SqlStep, err: unknown): StepError {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String((err).code) : '';
  if (code === '25006') {
    return new StepError('step_code_failed', memberId, `its SQL step is read-only and the query tried to write (${errorText(err)}); mark the step "write": true if it should`, false);
  }
  if (code === '57014') return new StepError('timed_out', memberId, `its SQL query ran longer than ${step.timeoutMs} ms`, true);
  // Two deliveries running `create … if not exists` at once: one loses the catalog race; its retry finds the object.
  const racedCreate = (code === '23505' || code === '42P07' || code === '42710') && /^\s*create\b[^;]*\bif\s+not\s+exists\b/i.test(step.query);
  if (racedCreate) return new StepError('step_code_failed', memberId, `its SQL query lost a race to create the same object: ${errorText(err)}`, true);
  return new StepError('step_code_failed', memberId, `its SQL query failed: ${errorText(err)}`, RETRYABLE_SQLSTATE.has(code));
}


