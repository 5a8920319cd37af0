/** Looking a user up by email (what people type) or id (what sessions carry). */
import { eq, or } from 'drizzle-orm';
import { users } from '@trellis/db/schema/users';
import { UserNotFoundError } from './errors';
import type { Tx } from './last-admin';
import type { Db } from '@trellis/db/client';

/** The users row for an email or id, locked for the rest of the transaction when `tx` is one. @throws UserNotFoundError. */
export async function findUser(db: Db | Tx, who: string, lock = false): Promise<typeof users.$inferSelect> {
  const key = who.trim();
  const query = db.select().from(users).where(or(eq(users.email, key.toLowerCase()), eq(users.id, key))).limit(1);
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw new UserNotFoundError(key);
  return row;
}
