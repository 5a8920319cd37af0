/**
 * SQL steps on the `trellis` connection run as the restricted role `trellis_mesh` (migration 0005):
 * it owns the schema `mesh_data` and holds no right on Trellis's tables (docs/security.md). The step
 * runs inside a transaction that starts with `SET LOCAL ROLE trellis_mesh`, on Postgres and PGlite
 * alike; the ways out of such a role (set_config, SQL and PL/pgSQL functions or DO blocks that
 * reset the role, temporary tables shadowing Trellis's) are revoked by the migration and checked
 * here, and the session is reset after every step (a Postgres connection is closed, PGlite gets
 * `DISCARD ALL`), so nothing a step sets outlives it.
 */
import { PolicyRefusedError } from './refusal';

/** The role SQL steps on `trellis` run as. */
export const MESH_ROLE = 'trellis_mesh';
/** The one schema that role owns, first on its search path. */
export const MESH_SCHEMA = 'mesh_data';

/** Statements that start a step's transaction on `trellis`, after `begin`. */
export const ENTER_MESH_ROLE = [`set local role ${MESH_ROLE}`, `set local search_path = ${MESH_SCHEMA}`] as const;

/** A way to run one query: pg's pool or client, PGlite, or a transaction of either. */
type Query = (text: string) => Promise<{ rows: unknown[] }>;

const checked = new WeakMap<object, Promise<void>>();

/**
 * Checks once per database handle that `trellis_mesh` exists, that the Trellis role may become it,
 * and that it cannot leave it; the result is cached (a refusal too, until the process restarts).
 * @throws PolicyRefusedError (`sql-role`) naming what is still open.
 */
export function assertMeshRole(handle: object, query: Query): Promise<void> {
  let done = checked.get(handle);
  if (!done) {
    done = check(query);
    checked.set(handle, done);
  }
  return done;
}

async function check(query: Query): Promise<void> {
  let row: Record<string, boolean> | undefined;
  try {
    const got = await query(`select
      has_function_privilege('${MESH_ROLE}', 'pg_catalog.set_config(text, text, boolean)', 'execute') as "set_config()",
      has_language_privilege('${MESH_ROLE}', 'sql', 'usage') as "SQL functions",
      has_language_privilege('${MESH_ROLE}', 'plpgsql', 'usage') as "PL/pgSQL and DO blocks",
      has_database_privilege('${MESH_ROLE}', current_database(), 'temporary') as "temporary tables",
      not pg_has_role(current_user, '${MESH_ROLE}', 'member') as "no membership to set the role",
      not exists (select 1 from pg_namespace n join pg_roles r on r.oid = n.nspowner where n.nspname = '${MESH_SCHEMA}' and r.rolname = '${MESH_ROLE}') as "no ${MESH_SCHEMA} schema of its own"`);
    row = got.rows[0] as Record<string, boolean> | undefined;
  } catch (err) {
    throw new PolicyRefusedError('sql-role', `the role ${MESH_ROLE} is missing (${err instanceof Error ? err.message : String(err)}); the migrations make it`);
  }
  const open = Object.entries(row ?? {}).filter(([, v]) => v).map(([k]) => k);
  if (open.length > 0) {
    throw new PolicyRefusedError(
      'sql-role',
      `SQL steps on trellis are off: the role ${MESH_ROLE} is not confined on this database (${open.join(', ')}); ` +
        'migrate as a superuser once so the revocations of migration 0005 apply, or give meshes a named connection instead',
    );
  }
}
