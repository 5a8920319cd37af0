/**
 * Restoring the embedded database from a snapshot ({@link DbHandle.snapshot}: PGlite's gzipped
 * tarball of its data directory). Postgres is backed up and restored with its own tools.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { DatabaseUnreachableError, lockDataDir, privateDataDir, privateFiles, type DbHandle } from './client';

/** What {@link restoreDataDir} did. */
export interface RestoreResult {
  /** The data directory now holding the snapshot (absolute). */
  dataDir: string;
  /** Where the directory's earlier contents were moved (`<dataDir>.before-restore-<time>`), or undefined when it was empty or absent. */
  previous: string | undefined;
}

/** True when `bytes` starts like a gzip stream (RFC 1952: 0x1f 0x8b). */
function isGzip(bytes: Uint8Array): boolean {
  return bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/**
 * Loads a snapshot into `dataDir`: unpacked and opened (`select 1`) in a directory beside it first,
 * then put in its place, the earlier contents kept as `<dataDir>.before-restore-<ISO time>`. Holds the
 * data directory's lock throughout, so it never replaces a database a running process has open.
 * The restored directory and the kept one are private to this user (mode 0700, files 0600).
 * @throws Error naming the file's problem when `bytes` is not a gzipped snapshot;
 *   DatabaseUnreachableError naming the process holding the data directory, or when the snapshot does not open.
 */
export async function restoreDataDir(dataDir: string, bytes: Uint8Array): Promise<RestoreResult> {
  if (!isGzip(bytes)) throw new Error('not a Trellis backup: expected the gzipped data directory that `trellis backup` writes');
  const target = resolve(dataDir);
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  const unlock = lockDataDir(target);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const staging = `${target}.restoring-${stamp}`;
  try {
    try {
      // Private from the start, like a data directory openDb makes: the snapshot holds password and token hashes.
      privateDataDir(staging);
      const loaded = await PGlite.create(staging, { loadDataDir: new Blob([new Uint8Array(bytes)]) });
      await loaded.query('select 1');
      await loaded.close();
      privateFiles(staging);
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      throw new DatabaseUnreachableError(`the snapshot being restored into ${target}`, err, 'The backup file may be damaged or from another PGlite version.');
    }
    let previous: string | undefined;
    if (existsSync(target) && readdirSync(target).length > 0) {
      previous = `${target}.before-restore-${stamp}`;
      renameSync(target, previous);
      // The earlier database, kept beside it, holds the same secrets: private too.
      privateDataDir(previous);
    } else {
      rmSync(target, { recursive: true, force: true });
    }
    renameSync(staging, target);
    return { dataDir: target, previous };
  } finally {
    unlock();
  }
}

/** The part of a {@link DbHandle} a backup needs. */
export type SnapshotSource = Pick<DbHandle, 'kind' | 'snapshot'>;
