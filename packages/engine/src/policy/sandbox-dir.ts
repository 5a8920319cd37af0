/**
 * Where and as whom code sandboxes run (docs/security.md): each step run that asks for files gets a
 * fresh directory under the configured root (TRELLIS_SANDBOX_ROOT), checked with `realpath` to be
 * inside the root and outside the application tree, removed afterwards. When Trellis runs as root
 * the sandbox process runs as an unprivileged user (TRELLIS_SANDBOX_USER, default `nobody`).
 */
import { chmodSync, chownSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, isAbsolute } from 'node:path';
import { PolicyRefusedError } from './refusal';

/** A user a sandbox process runs as. */
export interface SandboxUser {
  name: string;
  uid: number;
  gid: number;
}

/** Resolved sandbox settings. */
export interface SandboxSettings {
  /** The real path of the root scratch directories are made under. */
  root: string;
  /** The user sandboxes run as; undefined when Trellis itself is not root (it already is unprivileged). */
  user: SandboxUser | undefined;
}

/** True when `inner` is `outer` or below it. */
function within(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The uid and gid of `name` from /etc/passwd. @throws Error naming TRELLIS_SANDBOX_USER when there is no such user. */
export function lookupUser(name: string, passwd = '/etc/passwd'): SandboxUser {
  for (const line of readFileSync(passwd, 'utf8').split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && uid !== undefined && gid !== undefined) return { name, uid: Number(uid), gid: Number(gid) };
  }
  throw new Error(`TRELLIS_SANDBOX_USER: there is no user ${name} in ${passwd}`);
}

/**
 * Resolves and creates the sandbox root (mode 0711: the sandbox user may enter its own directory
 * but not list the others) and picks the sandbox user.
 * @throws Error naming TRELLIS_SANDBOX_ROOT when the root lies inside the application tree `appRoot`.
 */
export function resolveSandbox(options: { root?: string | undefined; user?: string | undefined; appRoot: string }): SandboxSettings {
  const wanted = resolve(options.root ?? join(tmpdir(), 'trellis-sandbox'));
  mkdirSync(wanted, { recursive: true, mode: 0o711 });
  chmodSync(wanted, 0o711);
  const root = realpathSync(wanted);
  const app = realpathSync(options.appRoot);
  if (within(root, app) || within(app, root)) {
    throw new Error(`TRELLIS_SANDBOX_ROOT: ${root} overlaps the application tree ${app}; steps must never write there`);
  }
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return { root, user: isRoot ? lookupUser(options.user ?? 'nobody') : undefined };
}

/**
 * Runs `fn` with a fresh, empty directory of its own (owned by the sandbox user), then removes it.
 * @throws PolicyRefusedError (`sandbox`) when the made directory does not resolve inside the root.
 */
export async function withScratchDir<T>(settings: SandboxSettings, fn: (dir: string) => Promise<T>): Promise<T> {
  const made = await mkdtemp(join(settings.root, 'step-'));
  try {
    const dir = await realpath(made);
    if (!within(dir, settings.root) || dir === settings.root) throw new PolicyRefusedError('sandbox', `the scratch directory ${dir} is not inside ${settings.root}`);
    if (settings.user) chownSync(dir, settings.user.uid, settings.user.gid);
    return await fn(dir);
  } finally {
    await rm(made, { recursive: true, force: true });
  }
}
