/**
 * GET /api/v1/admin/backup — a consistent snapshot of the embedded database while Trellis runs
 * (admins; a session or an `admin` token), for `trellis backup --url`. The server holds the embedded
 * database's lock, so only it can copy the database; each copy is audited (`backup.create`).
 * On Postgres it answers 409: pg_dump / pg_basebackup back that up (docs/operations.md, "Backups").
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { isSnapshotUnsupported } from '@trellis/db/client';
import { actorOf, recordAudit } from '@trellis/engine/audit/append';
import { EngineError } from '@trellis/engine/errors';
import { defineRoute } from './contract';

/** A backup asked of a server on Postgres (409). */
class BackupUnsupportedError extends EngineError {
  static override readonly httpStatus = 409;
  constructor(message: string) {
    super('backup_unsupported', message);
  }
}

export const backupRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/backup',
  summary: 'Snapshot the embedded database (admins).',
  description:
    'A consistent copy taken while runs go on (between transactions, after a CHECKPOINT): PGlite\'s gzipped data directory, base64-encoded. ' +
    '`trellis restore <file>` loads it. Recorded in the audit trail as `backup.create`.',
  auth: 'admin',
  response: {
    status: 200,
    description: 'The snapshot.',
    schema: z.object({
      format: z.literal('pglite-datadir-tar-gzip'),
      createdAt: z.string(),
      bytes: z.number().int().meta({ description: 'Size of the snapshot (decoded), in bytes.' }),
      sha256: z.string().meta({ description: 'Hex SHA-256 of the decoded snapshot.' }),
      data: z.string().meta({ description: 'The snapshot, base64.' }),
    }),
  },
  errors: {
    401: 'Not signed in.',
    403: 'Not an admin (or the token lacks scope "admin").',
    409: 'The database is Postgres: back it up with pg_dump or pg_basebackup.',
    503: 'The database cannot be reached.',
  },
  async handle({ engine, database, user }) {
    const source = await database();
    let bytes: Uint8Array;
    try {
      bytes = await source.snapshot();
    } catch (err) {
      if (isSnapshotUnsupported(err)) throw new BackupUnsupportedError(err.message);
      throw err;
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const createdAt = new Date().toISOString();
    await recordAudit((await engine()).db, { actor: actorOf(user), action: 'backup.create', detail: { bytes: bytes.length, sha256 } });
    return { format: 'pglite-datadir-tar-gzip' as const, createdAt, bytes: bytes.length, sha256, data: Buffer.from(bytes).toString('base64') };
  },
});
