/** The last-admin policy: no change may leave Trellis without an active admin. */
import { and, eq, isNull, ne } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { users } from '@trellis/db/schema/users';
import { LastAdminError } from './errors';

/** A transaction handle, as `db.transaction` hands it to its callback. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/**
 * Inside `tx`, refuses when `userId` is the only active admin. Locks the other active admins' rows,
 * so two admins demoting each other at the same moment cannot both succeed.
 * @throws LastAdminError naming `action`.
 */
export async function keepAnAdmin(tx: Tx, userId: string, action: string): Promise<void> {
  const others = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.role, 'admin'), eq(users.kind, 'person'), isNull(users.disabledAt), ne(users.id, userId)))
    .for('update');
  if (others.length === 0) throw new LastAdminError(action);
}
