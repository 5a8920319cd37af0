/** Every user, for the admins' Users page and `trellis user list` (never a password hash). */
import { asc } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { users } from '@trellis/db/schema/users';
import { parseRole, type Role } from './roles';

/** One user as admins see them. */
export interface UserView {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  createdAt: Date;
}

/** All users, oldest first. */
export async function listUsers(db: Db): Promise<UserView[]> {
  const rows = await db.select().from(users).orderBy(asc(users.createdAt), asc(users.id));
  return rows.map((u) => ({ id: u.id, email: u.email, name: u.name, role: parseRole(u.role), disabled: u.disabledAt !== null, createdAt: u.createdAt }));
}
