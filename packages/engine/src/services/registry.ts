/**
 * Use cases: registering outside services and checking their API keys. A key is
 * `trs_<name-free 43 base64url chars>` (32 random bytes); only its SHA-256 is stored, and the key is
 * shown once, when the service is added.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { services } from '@trellis/db/schema/services';
import { IdSchema } from '@trellis/mesh/schema';
import { BadInputError } from '../kernel/errors';
import { ServiceExistsError, ServiceUnauthorizedError } from './errors';

/** SHA-256 of a key, hex. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A registered service as listed (never with its key). */
export interface ServiceView {
  name: string;
  keyPrefix: string;
  createdBy: string | null;
  createdAt: Date;
}

/**
 * Registers a service and returns its API key, which is not stored and cannot be shown again.
 * @throws BadInputError (`bad_input`) for a name that is not 1-63 letters, digits, "-" or "_";
 *   ServiceExistsError when the name is taken.
 */
export async function addService(db: Db, input: { name: string; userId?: string }): Promise<{ name: string; apiKey: string }> {
  const parsed = IdSchema.safeParse(input.name);
  if (!parsed.success) throw new BadInputError(`service name ${JSON.stringify(input.name)}: expected 1-63 letters, digits, "-" or "_"`);
  const apiKey = `trs_${randomBytes(32).toString('base64url')}`;
  const added = await db
    .insert(services)
    .values({ name: parsed.data, keyHash: hashKey(apiKey), keyPrefix: apiKey.slice(0, 10), createdBy: input.userId ?? null })
    .onConflictDoNothing()
    .returning({ name: services.name });
  if (added.length === 0) throw new ServiceExistsError(parsed.data);
  return { name: parsed.data, apiKey };
}

/** Lists registered services by name. */
export async function listServices(db: Db): Promise<ServiceView[]> {
  return db
    .select({ name: services.name, keyPrefix: services.keyPrefix, createdBy: services.createdBy, createdAt: services.createdAt })
    .from(services)
    .orderBy(services.name);
}

/** Removes a service; its waiting jobs stay until they expire with `no_worker`. @returns false when none had the name. */
export async function removeService(db: Db, name: string): Promise<boolean> {
  const gone = await db.delete(services).where(eq(services.name, name)).returning({ name: services.name });
  return gone.length > 0;
}

/**
 * Checks a service's API key in constant time.
 * @throws ServiceUnauthorizedError when the key is missing, wrong, or the service is not registered.
 */
export async function authenticateService(db: Db, name: string, apiKey: string | undefined | null): Promise<void> {
  if (!apiKey) throw new ServiceUnauthorizedError(name, true);
  const [row] = await db.select({ keyHash: services.keyHash }).from(services).where(eq(services.name, name));
  const given = Buffer.from(hashKey(apiKey), 'hex');
  const stored = Buffer.from(row?.keyHash ?? hashKey(`absent:${name}`), 'hex');
  if (!row || given.length !== stored.length || !timingSafeEqual(given, stored)) throw new ServiceUnauthorizedError(name, false);
}
