/**
 * Startup safety (issue 12): outside development Trellis refuses to start while the first admin's
 * password is the documented default, whether it is about to be set from TRELLIS_ADMIN_PASSWORD or
 * is still the password of an active admin.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { users } from '@trellis/db/schema/users';
import { verifyPassword } from './password';

/** The password earlier quick starts and the compose file used; never accepted outside development. */
export const DEFAULT_ADMIN_PASSWORD = 'trellis-admin';

/** Thrown at start when the configuration is unsafe; names the setting to change. */
export class UnsafeStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeStartError';
  }
}

/**
 * @param development true under NODE_ENV=development, where the default is tolerated.
 * @throws UnsafeStartError naming TRELLIS_ADMIN_PASSWORD or the admin to change.
 */
export async function checkStartupSafety(db: Db, input: { development: boolean; adminPassword?: string | undefined }): Promise<void> {
  if (input.development) return;
  if (input.adminPassword === DEFAULT_ADMIN_PASSWORD) {
    throw new UnsafeStartError(`TRELLIS_ADMIN_PASSWORD is the default "${DEFAULT_ADMIN_PASSWORD}": choose another (or unset it to have one generated)`);
  }
  const admins = await db.select().from(users).where(and(eq(users.role, 'admin'), isNull(users.disabledAt)));
  for (const admin of admins) {
    if (await verifyPassword(DEFAULT_ADMIN_PASSWORD, admin.passwordHash)) {
      throw new UnsafeStartError(
        `the admin ${admin.email} still has the default password: set a new one with \`trellis user password ${admin.email}\` before starting`,
      );
    }
  }
}
