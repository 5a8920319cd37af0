/**
 * What every procedure receives: the caller's session claims (or none), the database and the engine
 * handle. The web app builds it per request from the next-auth JWT and the process-wide runtime; the
 * access middleware (trpc.ts) turns the claims into the current user, checked against the users row.
 */
import type { Db } from '@trellis/db/client';
import type { Engine } from '@trellis/engine/engine';
import type { SessionClaims } from '@trellis/engine/users/session-user';

export interface Context {
  session: SessionClaims | null;
  db: Db;
  engine: Engine;
}
