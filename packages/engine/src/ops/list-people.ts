/** Use case: the people an Action Center item can be assigned to. */
import { asc } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { users } from '@trellis/db/schema/users';

/** Every user by name: id, name and email (never the password hash). */
export async function listPeople(db: Db): Promise<{ id: string; name: string; email: string }[]> {
  return db.select({ id: users.id, name: users.name, email: users.email }).from(users).orderBy(asc(users.name));
}
