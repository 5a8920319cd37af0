import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { MessageStatus } from '@trellis/db/schema/statuses';
import { rows, RowShapeError, type Queryable } from './sql';
import { approvalStatus, jobStatuses, msgStatus, msgStatuses, runStatus } from './statuses';

const render = (q: ReturnType<typeof sql>) => new PgDialect().sqlToQuery(q);

describe('statuses in raw SQL', () => {
  it('are string literals, not parameters, so the query text stays what it was', () => {
    expect(render(sql`update messages set status = ${msgStatus('done')} where status in ${msgStatuses('pending', 'running')}`)).toEqual({
      sql: `update messages set status = 'done' where status in ('pending', 'running')`,
      params: [],
    });
    expect(render(sql`r.status = ${runStatus('stalled')} and j.status in ${jobStatuses('waiting')} and a.status = ${approvalStatus('pending')}`).sql).toBe(
      `r.status = 'stalled' and j.status in ('waiting') and a.status = 'pending'`,
    );
  });

  it('refuse a value that reached them through a cast, naming the table and the statuses', () => {
    expect(() => msgStatus('pendng' as MessageStatus)).toThrow(/"pendng" is not a message status \(expected one of pending, running/);
    expect(() => msgStatus("done' or '1'='1" as MessageStatus)).toThrow(/is not a message status/);
  });
});

describe('rows with a row schema', () => {
  const db = (got: unknown[]): Queryable => ({ execute: () => Promise.resolve({ rows: got }) as never });

  it('returns the rows parsed, without the columns the schema does not name', async () => {
    expect(await rows(db([{ id: 'a', n: 2, extra: true }]), sql`select`, z.object({ id: z.string(), n: z.number() }))).toEqual([{ id: 'a', n: 2 }]);
  });

  it('throws RowShapeError naming the row and the column when the query and its schema disagree', async () => {
    const bad = rows(db([{ id: 'a', n: 1 }, { id: 'b', n: '2' }]), sql`select`, z.object({ id: z.string(), n: z.number() }));
    await expect(bad).rejects.toBeInstanceOf(RowShapeError);
    await expect(bad).rejects.toThrow(/row 1 of a query does not match its row schema[\s\S]*n/);
  });
});
