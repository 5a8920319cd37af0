/**
 * The sealed audit trail on real Postgres: privileged actions are chained in their transaction,
 * the table refuses edits, and an edit made behind Trellis's back is named by verify.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type DbHandle } from '@trellis/db/client';
import { createTestDatabase } from '../../test/harness';
import { addUser } from '../users/add-user';
import { setUserRole } from '../users/change-user';
import { UserExistsError } from '../users/errors';
import { appendAudit } from './append';
import { canonicalJson, entryHash, GENESIS_HASH } from './chain';
import { listAudit } from './list-audit';
import { verifyAudit } from './verify';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let handle: DbHandle;
beforeAll(async () => {
  database = await createTestDatabase();
  handle = await openDb({ url: database.url });
  await handle.migrate();
}, 180_000);
afterAll(async () => {
  await handle.close();
  await database.drop();
});

const actor = { id: 'u-admin', email: 'admin@a.test' };

describe('the audit trail', () => {
  it('seals canonical JSON: sorted keys at every depth, dates as ISO strings', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: new Date(0) }], c: null }, u: undefined })).toBe('{"a":{"c":null,"d":[1,{"e":"1970-01-01T00:00:00.000Z","f":2}]},"b":1}');
    const fields = { seq: 1, at: new Date(0), actorId: null, actorEmail: null, action: 'x', target: null, detail: {} };
    expect(entryHash(GENESIS_HASH, fields)).toMatch(/^[0-9a-f]{64}$/);
    expect(entryHash(GENESIS_HASH, fields)).not.toBe(entryHash(GENESIS_HASH, { ...fields, detail: { a: 1 } }));
  });

  it('records user changes in their transaction, chained, and rolls back with a refused action', async () => {
    await addUser(handle.db, { email: 'dee@a.test', role: 'designer', password: 'audit-password' }, actor);
    await setUserRole(handle.db, 'dee@a.test', 'operator', actor);
    await expect(addUser(handle.db, { email: 'dee@a.test', role: 'viewer', password: 'audit-password' }, actor)).rejects.toThrow(UserExistsError);
    const entries = await listAudit(handle.db);
    expect(entries.map((e) => [e.seq, e.action, e.target, e.actorEmail])).toEqual([
      [2, 'user.role', 'dee@a.test', 'admin@a.test'],
      [1, 'user.add', 'dee@a.test', 'admin@a.test'],
    ]);
    expect(entries[0]?.detail).toEqual({ from: 'designer', to: 'operator' });
    expect(entries[0]?.prevHash).toBe(entries[1]?.hash);
    expect(await verifyAudit(handle.db)).toMatchObject({ ok: true, entries: 2 });
    expect((await listAudit(handle.db, { action: 'user.', actor: 'ADMIN@a.test', limit: 1 })).map((e) => e.seq)).toEqual([2]);
  });

  it('keeps one chain under concurrent writers', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => handle.db.transaction((tx) => appendAudit(tx, { actor, action: 'test.parallel', detail: { i } }))));
    expect(await verifyAudit(handle.db)).toMatchObject({ ok: true, entries: 22 });
  });

  it('refuses edits, and names the first entry edited or removed behind its back', async () => {
    // Drizzle wraps the database's error; its own sentence is the cause.
    const refusal = (q: Promise<unknown>) => q.then(() => 'accepted', (e: Error) => (e.cause instanceof Error ? e.cause.message : e.message));
    expect(await refusal(handle.db.execute(sql`update audit_log set target = 'x' where seq = 5`))).toBe('audit_log is append-only: UPDATE refused');
    expect(await refusal(handle.db.execute(sql`delete from audit_log where seq = 5`))).toBe('audit_log is append-only: DELETE refused');
    await handle.db.execute(sql`alter table audit_log disable trigger audit_log_append_only`);
    await handle.db.execute(sql`update audit_log set detail = '{"i": 999}' where seq = 7`);
    expect(await verifyAudit(handle.db)).toMatchObject({ ok: false, entries: 6, broken: { seq: 7, action: 'test.parallel', reason: 'its contents do not match its hash (the entry was edited)' } });
    await handle.db.execute(sql`delete from audit_log where seq = 3`);
    expect(await verifyAudit(handle.db)).toMatchObject({ ok: false, entries: 2, broken: { seq: 4, reason: 'entry 3 is missing' } });
    await handle.db.execute(sql`alter table audit_log enable trigger audit_log_append_only`);
  });
});
