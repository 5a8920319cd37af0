/**
 * Binding a queue prefix to one install. Two installs that share one Redis and one prefix would take
 * each other's jobs (their runs then fail with `message_lost`), so each database holds an install
 * id (the `installation` row) and the prefix holds the id of the install that owns it
 * (`<prefix>:install` in Redis). A process whose database does not own its prefix refuses to start.
 */
import { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { EngineError } from '../kernel/errors';
import { rows } from '../kernel/sql';
import type { Engine } from '../kernel/engine';

/** The queue prefix belongs to another install (its id is in Redis under the prefix). */
export class QueuePrefixTakenError extends EngineError {
  static override readonly httpStatus = 409;
  constructor(
    readonly prefix: string,
    readonly owner: string,
    readonly mine: string,
  ) {
    super(
      'queue_prefix_taken',
      `the queue prefix "${prefix}" belongs to another Trellis install (install ${owner}; this database is install ${mine}): ` +
        'two installs sharing a prefix would take each other\'s jobs. Set TRELLIS_QUEUE_PREFIX to a name of its own for this install, ' +
        `or, if that other install is gone for good, delete the Redis key ${installKey(prefix)}.`,
    );
  }
}

/** The Redis key holding the id of the install that owns `prefix`. */
export function installKey(prefix: string): string {
  return `${prefix}:install`;
}

/** This database's install id, created on first use. */
export async function installId(engine: Engine): Promise<string> {
  await engine.db.execute(sql`insert into installation (singleton, id) values (true, ${randomUUID()}) on conflict do nothing`);
  const [row] = await rows(engine.db, sql`select id from installation`, z.object({ id: z.string() }));
  if (!row) throw new Error('the installation row is missing right after it was written');
  return row.id;
}

/**
 * Claims the engine's queue prefix for this database's install, or checks that it already owns it.
 * With `takeOver`, a prefix owned by another id is taken over with a warning instead: for the
 * embedded database's default prefix, which is derived from the data directory, a different id
 * means the database there was deleted and made anew, so the old owner is gone.
 * @returns this install's id.
 * @throws QueuePrefixTakenError naming TRELLIS_QUEUE_PREFIX when another install owns the prefix.
 */
export async function bindQueuePrefix(engine: Engine, options: { takeOver?: boolean } = {}): Promise<string> {
  const mine = await installId(engine);
  // The in-process bus shares no queues with anyone: there is no prefix to claim.
  if (engine.localBus) return mine;
  const key = installKey(engine.config.prefix);
  if ((await engine.redis.set(key, mine, 'NX')) === 'OK') return mine;
  const owner = await engine.redis.get(key);
  if (owner === mine || owner === null) {
    if (owner === null) await engine.redis.set(key, mine, 'NX');
    return mine;
  }
  if (!options.takeOver) throw new QueuePrefixTakenError(engine.config.prefix, owner, mine);
  engine.log.warn('taking over the queue prefix of a deleted embedded database', { prefix: engine.config.prefix, previous: owner });
  await engine.redis.set(key, mine);
  return mine;
}
