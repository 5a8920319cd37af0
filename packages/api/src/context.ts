/**
 * What every procedure receives: who is signed in (or nobody), the database and the engine handle.
 * The web app builds it per request from the next-auth session and the process-wide runtime.
 */
import type { Db } from '@trellis/db/client';
import type { Engine } from '@trellis/engine/engine';
import type { SignedInUser } from '@trellis/engine/users/verify-credentials';

export interface Context {
  user: SignedInUser | null;
  db: Db;
  engine: Engine;
}
