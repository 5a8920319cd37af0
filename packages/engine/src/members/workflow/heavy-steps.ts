/**
 * Workflows with heavy steps (code, SQL, HTTP, agent): run on a worker pool before the commit
 * transaction, never inside it (see process/commit.ts `prepareHeavy`). Built-in steps between them
 * run exactly as in members/workflow/steps.ts. Each heavy step maps one non-void item to one item with a new
 * payload; a void item passes through untouched.
 */
import pg from 'pg';
import type { Db } from '@trellis/db/client';
import { hostAllowed, templateHost, urlPlaceholders } from '@trellis/mesh/member-config';
import { HEAVY_STEP_TYPES, IDEMPOTENCY_KEY_PARAM, OWN_DATABASE_CONNECTION, type AgentMember, type AgentStep, type HttpStep, type SqlStep, type Step, type WorkflowMember } from '@trellis/mesh/schema';
import { StepError } from '../../kernel/errors';
import type { AgentRunner } from '../../kernel/engine';
import { asPolicyRefusal } from '../../policy/egress';
import type { Guard } from '../../policy/guard';
import { PolicyRefusedError } from '../../policy/refusal';
import { assertMeshRole, ENTER_MESH_ROLE } from '../../policy/sql-role';
import { afterSessionStep, beforeSessionStep, LEAVE_MESH_ROLE } from '../../policy/sql-session';
import { sqlStatementRefusal } from '@trellis/mesh/sql-statement';
import { runCodeStep } from './steps/code-sandbox';
import { unpackEmail } from './steps/email';
import { getField, type Item } from '../../plan/frames';
import type { Incoming } from '../types';
import { applyStep, splitKey } from './steps';

/**
 * The delivery a heavy step runs in (process/lease.ts): the message id, a signal that aborts when
 * the lease is lost or the run ends, and `guard()` to call before each outside effect.
 */
export interface StepRun {
  messageId: string;
  /** The run and mesh of the delivery (agent budgets and the tool trail); absent in direct calls. */
  runId?: string;
  meshId?: string;
  signal: AbortSignal;
  /** @throws LeaseLostError or RunEndedError when this delivery must not act any more. */
  guard(): Promise<void>;
}

/** What heavy steps need from the engine. */
export interface StepContext {
  /** What steps may reach (secrets, named connections, egress, the sandbox), each under its policy; never the process environment. */
  policy: Guard;
  /** Trellis's own database (Postgres or PGlite): what a SQL step with connection `trellis` runs on. */
  db: Db;
  runAgent: AgentRunner;
  /** Longest an agent step may take, in ms. */
  agentTimeoutMs: number;
  /** The delivery, when the step runs for one (absent in direct calls, e.g. tests). */
  run?: StepRun | undefined;
}

/**
 * The idempotency key of one outside effect of a delivery (DESIGN.md §3): the message id for the
 * member's first heavy step on a single item, else `<message id>/<step index>/<item index>` (the
 * same rule as split keys, `splitKey`), so every effect of a delivery has its own key and a
 * redelivery sends the same keys again.
 */
export function effectKey(messageId: string, step: number, item: number, first: boolean): string {
  return splitKey(messageId, step, item, first);
}

/** True for step types that must not run inside the commit transaction. */
export function isHeavyStep(step: Step): boolean {
  return (HEAVY_STEP_TYPES as readonly string[]).includes(step.type);
}

/** True for a workflow with at least one heavy step. */
export function hasHeavySteps(member: WorkflowMember): boolean {
  return member.steps.some(isHeavyStep);
}

/**
 * Runs every step of a workflow on one message, heavy ones included, and returns the outputs in
 * order. Split keys are those of members/workflow/steps.ts `executeMember`.
 * @throws StepError with the failing step's cause (see each step runner).
 */
export async function runWorkflow(member: WorkflowMember, msg: Incoming, ctx: StepContext): Promise<Item[]> {
  let items: Item[] = [{ payload: msg.payload, frames: msg.frames, void: msg.void }];
  let splitSeen = false;
  let effectSeen = false;
  for (const [s, step] of member.steps.entries()) {
    if (step.type === 'email') {
      // A split (members/workflow/steps/email.ts): one item per attachment, keyed like a split step.
      const first = !splitSeen && items.length === 1;
      const next: Item[] = [];
      for (const [i, item] of items.entries()) next.push(...(await unpackEmail(member.id, step, item, splitKey(msg.id, s, i, first))));
      items = next;
    } else if (isHeavyStep(step)) {
      const next: Item[] = [];
      const first = !effectSeen && items.length === 1;
      // One item at a time: each may hold a process, a connection or a model call.
      for (const [i, item] of items.entries()) {
        if (item.void) {
          next.push(item);
          continue;
        }
        await ctx.run?.guard();
        const key = effectKey(msg.id, s, i, first);
        next.push({ ...item, payload: await stoppable(ctx, () => runHeavyStep(member.id, s, step, item.payload, ctx, key)) });
      }
      effectSeen = true;
      items = next;
    } else {
      const first = !splitSeen && items.length === 1;
      items = items.flatMap((item, i) => applyStep(member.id, step, item, splitKey(msg.id, s, i, first)));
    }
    if (step.type === 'split' || step.type === 'email') splitSeen = true;
  }
  return items;
}

/**
 * Runs `fn`; when the delivery was stopped meanwhile (its lease lost, its run ended), throws the
 * reason instead of whatever the interrupted step threw, so the caller does not retry it.
 */
async function stoppable<T>(ctx: StepContext, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const reason: unknown = ctx.run?.signal.reason;
    if (ctx.run?.signal.aborted && reason instanceof Error) throw reason;
    throw err;
  }
}

async function runHeavyStep(memberId: string, index: number, step: Step, payload: unknown, ctx: StepContext, key: string): Promise<unknown> {
  try {
    return await runHeavyStepOnce(memberId, index, step, payload, ctx, key);
  } catch (err) {
    // A policy refusal is final: another attempt would be refused the same way.
    const refused = asPolicyRefusal(err);
    const failed = refused instanceof PolicyRefusedError ? new StepError('step_code_failed', memberId, `its ${step.type} step was ${refused.message}`, false) : err;
    if (failed instanceof StepError) failed.step ??= step.type;
    throw failed;
  }
}

async function runHeavyStepOnce(memberId: string, index: number, step: Step, payload: unknown, ctx: StepContext, key: string): Promise<unknown> {
  const signal = ctx.run?.signal;
  switch (step.type) {
    case 'code':
      return runCodeStep(memberId, step, payload, signal, { messageId: ctx.run?.messageId ?? key, idempotencyKey: key }, ctx.policy);
    case 'sql':
      return runSqlStep(memberId, step, payload, ctx, key);
    case 'http':
      return runHttpStep(memberId, step, payload, ctx.policy, { key, ...(signal ? { signal } : {}) });
    case 'agent':
      return runAgentStep(memberId, step, payload, ctx, key);
    default:
      throw new StepError('step_code_failed', memberId, `step ${index + 1} (${step.type}) is not a heavy step`, false);
  }
}

/** `payload` with the dotted field `path` set to `value`; a non-object payload becomes `{ value: payload }` first. */
export function withField(payload: unknown, path: string, value: unknown): Record<string, unknown> {
  const base: Record<string, unknown> = isObject(payload) ? { ...payload } : payload === null || payload === undefined ? {} : { value: payload };
  const keys = path.split('.');
  let at = base;
  keys.forEach((key, i) => {
    if (i === keys.length - 1) {
      at[key] = value;
      return;
    }
    const inner = at[key];
    const copy: Record<string, unknown> = isObject(inner) ? { ...inner } : {};
    at[key] = copy;
    at = copy;
  });
  return base;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

// ---- SQL ------------------------------------------------------------------------------------

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

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// ---- HTTP -----------------------------------------------------------------------------------

/** Largest response body an HTTP step reads, in bytes. */
const MAX_HTTP_BODY = 8 * 1024 * 1024;

/**
 * The URL of an HTTP step for one payload: each `{field}` replaced by the payload value,
 * URL-encoded (a missing field is an error, not an empty segment).
 * @throws StepError `step_code_failed` for a missing field or a host not in `allowHosts`.
 */
export function buildUrl(memberId: string, step: HttpStep, payload: unknown): URL {
  const at = templateHost(step.url);
  if ('error' in at) throw new StepError('step_code_failed', memberId, `its HTTP step URL ${at.error}`, false);
  for (const p of urlPlaceholders(step.url)) {
    const v = getField(payload, p);
    if (v === null || v === undefined || typeof v === 'object') {
      throw new StepError('step_code_failed', memberId, `its HTTP step URL needs the field ${p}, which is ${v === null || v === undefined ? 'missing' : 'not a single value'}`, false);
    }
  }
  const url = new URL(step.url.replace(/\{([^{}]*)\}/g, (_, p: string) => encodeURIComponent(String(getField(payload, p)))));
  if (!hostAllowed(url.host, step.allowHosts)) {
    throw new StepError('step_code_failed', memberId, `its HTTP step may not call ${url.host}: it is not in allowHosts (${step.allowHosts.join(', ')})`, false);
  }
  return url;
}

/**
 * Runs an HTTP step: refuses any host not in `allowHosts` or the install's egress policy (checked
 * after DNS resolution, see policy/egress.ts), sets headers from the named secrets of the store
 * (each only for a host on its list), sends the `body` field (or the payload) as JSON for methods
 * with a body, never follows redirects, and writes the response (JSON when it parses, else text,
 * with any secret value it echoes redacted) to the payload field `into`.
 * @throws StepError `timed_out` past `timeoutMs`; `rate_limited` for HTTP 429; `step_code_failed`
 *   for a missing field, a redirect or any other non-2xx answer (retryable for 5xx and network
 *   errors); PolicyRefusedError for a refused host, address or secret.
 */
export async function runHttpStep(
  memberId: string,
  step: HttpStep,
  payload: unknown,
  policy: Guard,
  delivery: { key?: string; signal?: AbortSignal } = {},
): Promise<unknown> {
  const url = buildUrl(memberId, step, payload);
  const headers: Record<string, string> = {};
  // The IETF httpapi Idempotency-Key draft: the same key on every retry of the same effect.
  if (delivery.key) headers['idempotency-key'] = delivery.key;
  for (const [name, ref] of Object.entries(step.headers ?? {})) headers[name] = await policy.secretFor(ref.secret, url, `its HTTP step header ${name}`);
  let body: string | undefined;
  if (step.method !== 'GET' && step.method !== 'DELETE') {
    body = JSON.stringify(step.body === undefined ? payload : getField(payload, step.body));
    headers['content-type'] ??= 'application/json';
  }
  let res: Response;
  try {
    const timeout = AbortSignal.timeout(step.timeoutMs);
    const signal = delivery.signal ? AbortSignal.any([timeout, delivery.signal]) : timeout;
    res = await policy.fetch(url, { method: step.method, headers, body, redirect: 'manual', signal });
  } catch (err) {
    if (err instanceof PolicyRefusedError) throw err;
    if (delivery.signal?.aborted) throw delivery.signal.reason instanceof Error ? delivery.signal.reason : err;
    if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
      throw new StepError('timed_out', memberId, `its HTTP ${step.method} to ${url.host} took longer than ${step.timeoutMs} ms`);
    }
    const why = err instanceof Error && err.cause instanceof Error ? err.cause.message : errorText(err);
    throw new StepError('step_code_failed', memberId, `its HTTP ${step.method} to ${url.host} failed: ${why}`);
  }
  const text = policy.redact(await readCapped(res));
  if (res.status >= 300 && res.status < 400) {
    throw new StepError('step_code_failed', memberId, `its HTTP ${step.method} to ${url.host} answered a redirect (${res.status}); redirects are not followed, call the final URL`, false);
  }
  if (res.status === 429) throw new StepError('rate_limited', memberId, `its HTTP ${step.method} to ${url.host} was rate limited (429)`);
  if (res.status < 200 || res.status >= 300) {
    throw new StepError('step_code_failed', memberId, `its HTTP ${step.method} to ${url.host} answered ${res.status}: ${text.slice(0, 200)}`, res.status >= 500);
  }
  let value: unknown = text;
  if (text !== '') {
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
  }
  return withField(payload, step.into, value);
}

async function readCapped(res: Response): Promise<string> {
  const buf = await res.arrayBuffer();
  if (buf.byteLength > MAX_HTTP_BODY) throw new Error(`the response is larger than ${MAX_HTTP_BODY} bytes`);
  return new TextDecoder().decode(buf);
}

// ---- agent ----------------------------------------------------------------------------------

/** The agent member an agent step stands for: the workflow's id, the step's settings. */
export function agentOfStep(memberId: string, step: AgentStep): AgentMember {
  const { type: _type, output: _output, ...fields } = step;
  return { id: memberId, kind: 'agent', ...fields };
}

/**
 * Runs an agent step through the engine's agent runner under the agent time limit; `output:
 * 'merge'` spreads an object answer over the payload, `replace` makes the answer the payload.
 * @throws StepError `timed_out` past the limit, or the runner's own cause.
 */
export async function runAgentStep(memberId: string, step: AgentStep, payload: unknown, ctx: StepContext, key = ''): Promise<unknown> {
  const limit = ctx.agentTimeoutMs;
  const controller = new AbortController();
  const stop = () => controller.abort(ctx.run?.signal.reason);
  ctx.run?.signal.addEventListener('abort', stop, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new StepError('timed_out', memberId, `its agent step took longer than ${limit / 1000} s`));
    }, limit);
  });
  try {
    const answer = await Promise.race([ctx.runAgent(agentOfStep(memberId, step), payload, controller.signal, { idempotencyKey: key, ...(ctx.policy ? { guard: ctx.policy } : {}), ...runPlace(ctx.run) }), deadline]);
    if (step.output === 'merge' && isObject(answer)) return { ...(isObject(payload) ? payload : {}), ...answer };
    return answer;
  } finally {
    clearTimeout(timer);
    ctx.run?.signal.removeEventListener('abort', stop);
  }
}

/** The run, mesh and message of a delivery, for an agent call's budget and trail. */
function runPlace(run: StepRun | undefined): { runId?: string; meshId?: string; messageId?: string } {
  if (!run) return {};
  return { messageId: run.messageId, ...(run.runId ? { runId: run.runId } : {}), ...(run.meshId ? { meshId: run.meshId } : {}) };
}
