/** Raw SQL helpers shared by the hot paths. */
import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@trellis/db/client';

/** A database or an open transaction: both run queries the same way. */
export type Queryable = Pick<Db, 'execute'>;

/**
 * Runs `query` and returns its rows, each checked against `row` (a zod object naming the select
 * list's columns as both drivers return them: `int` as number, `bigint` as string, `timestamptz` as
 * Date, `json`/`jsonb` parsed). Columns the schema does not name are dropped.
 * @throws RowShapeError naming the row and the column that does not match.
 *
 * Without `row` the caller vouches for `T` (tests, and the call sites lint still allows: see
 * eslint.config.js); both drivers put the rows on `.rows`.
 */
export async function rows<S extends z.ZodType>(db: Queryable, query: SQL, row: S): Promise<z.output<S>[]>;
export async function rows<T>(db: Queryable, query: SQL): Promise<T[]>;
export async function rows(db: Queryable, query: SQL, row?: z.ZodType): Promise<unknown[]> {
  const result: unknown = await db.execute(query);
  const got = (result as { rows: unknown[] }).rows;
  if (!row) return got;
  return got.map((r, i) => {
    const parsed = row.safeParse(r);
    if (!parsed.success) throw new RowShapeError(i, parsed.error);
    return parsed.data;
  });
}

/** A query returned a row its schema refuses: the query and its schema disagree (a bug, not bad input). */
export class RowShapeError extends Error {
  constructor(
    /** The row's index in the result, from 0. */
    readonly index: number,
    cause: z.ZodError,
  ) {
    super(`row ${index} of a query does not match its row schema: ${z.prettifyError(cause)}`, { cause });
    this.name = 'RowShapeError';
  }
}

/**
 * A row of one `id` column (`returning id`). Row schemas on the hot path are module constants: zod
 * compiles each schema on its first parse, so a schema built per call is compiled per call.
 */
export const IdRow = z.object({ id: z.string() });

/** A `timestamptz` column: a Date from either driver, or text when the query casts it. */
export const timestamp = z.union([z.date(), z.string()]);

/** Postgres error codes worth a retry of the whole transaction. */
const RETRYABLE = new Set(['40001', '40P01']);

/** True for a serialization failure or deadlock, which a retry of the transaction resolves. */
export function isRetryableTxError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && RETRYABLE.has(code)) return true;
  }
  return false;
}

/**
 * A Postgres `text[]` parameter for `= any(...)`, written as an array literal so both drivers send it
 * as one plain text value. `= any($1::text[])` is planned as index probes, where
 * `in (select json_array_elements_text(...))` can become a hash join over the whole table.
 */
export function textArray(values: readonly string[]): SQL {
  const literal = `{${values.map((v) => `"${v.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
  return sql`${literal}::text[]`;
}

const CONNECTION_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08006', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

/**
 * True when the database connection blinked (server restart, dropped socket): the pool hands out
 * a fresh connection, so retrying the transaction in place can succeed.
 */
export function isConnectionError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && /Connection terminated|connection (is )?closed|not queryable|connection error/i.test(message)) return true;
  }
  return false;
}
