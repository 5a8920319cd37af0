/**
 * The embedded database has one session, shared by Trellis's own queries and every SQL step on
 * `trellis`. Steps may run data statements only (@trellis/mesh/sql-statement), and as a safety net
 * each step's transaction ends with {@link LEAVE_MESH_ROLE}, so a session setting the step made
 * never commits, not even for the queries queued behind it. After the step the session's identity
 * is checked against Trellis's own; when it differs, SQL steps on `trellis` are off until the
 * process restarts, with an error in the log, rather than Trellis going on as another role.
 */
import { stderrLogger } from '../kernel/log';
import { PolicyRefusedError } from './refusal';

/**
 * Run inside a step's transaction just before COMMIT: undo any session-level
 * `SET SESSION AUTHORIZATION`, `SET ROLE` or setting the step made (each is transactional, so the
 * reset commits instead of them).
 */
export const LEAVE_MESH_ROLE = ['reset session authorization', 'reset all'] as const;

type Query = (text: string) => Promise<{ rows: unknown[] }>;

interface Identity {
  session: string;
  current: string;
}

const own = new WeakMap<object, Promise<Identity>>();
const broken = new WeakMap<object, string>();

async function identity(query: Query): Promise<Identity> {
  const got = await query('select session_user::text as session, current_user::text as current');
  const row = got.rows[0] as Partial<Identity> | undefined;
  return { session: String(row?.session), current: String(row?.current) };
}

/**
 * Remembers, once per database handle and before any step ran on it, who Trellis is on it.
 * @throws PolicyRefusedError (`sql-role`) when an earlier step left the session as someone else.
 */
export async function beforeSessionStep(handle: object, query: Query): Promise<void> {
  const why = broken.get(handle);
  if (why) throw new PolicyRefusedError('sql-role', `SQL steps on trellis are off until Trellis restarts: ${why}`);
  let mine = own.get(handle);
  if (!mine) {
    mine = identity(query);
    own.set(handle, mine);
  }
  await mine;
}

/**
 * Checks after a step that the session is Trellis's own again; when not, logs an error and turns
 * SQL steps on `trellis` off for this handle.
 * @throws PolicyRefusedError (`sql-role`) when the session is not Trellis's own.
 */
export async function afterSessionStep(handle: object, query: Query): Promise<void> {
  const mine = await own.get(handle);
  const now = await identity(query);
  if (!mine || (now.session === mine.session && now.current === mine.current)) return;
  const why = `a SQL step left the database session as ${now.session}/${now.current} instead of ${mine.session}/${mine.current}`;
  broken.set(handle, why);
  // Try to become Trellis again for its own queries; steps stay off either way.
  for (const statement of LEAVE_MESH_ROLE) await query(statement).catch(() => undefined);
  stderrLogger().error(`${why}; SQL steps on trellis are off until Trellis restarts`);
  throw new PolicyRefusedError('sql-role', why);
}
