/**
 * `trellis user add|list|role|disable|enable|remove`: people and their roles, from the server's own
 * shell (the CLI opens the database directly, so it needs no session). A generated password is
 * printed once; removing, disabling or changing a role ends the person's open sessions at once.
 */
import { addUser } from '@trellis/engine/users/add-user';
import { removeUser, resetPassword, setUserDisabled, setUserRole, type UserChange } from '@trellis/engine/users/change-user';
import { listUsers } from '@trellis/engine/users/list-users';
import { open, settings } from '../boot';
import { EXIT } from '../fail';

type Db = Awaited<ReturnType<typeof open>>['engine']['db'];

async function withDb(fn: (db: Db) => Promise<void>): Promise<number> {
  const booted = await open(settings());
  try {
    await fn(booted.engine.db);
    return EXIT.ok;
  } finally {
    await booted.close();
  }
}

function print(json: boolean | undefined, value: unknown, line: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${line}\n`);
}

/** Adds a user; prints the generated password once when none was given. */
export function userAddCommand(email: string, opts: { role: string; name?: string; password?: string; json?: boolean }): Promise<number> {
  return withDb(async (db) => {
    const added = await addUser(db, { email, role: opts.role, name: opts.name, password: opts.password });
    const line = added.password
      ? `user ${added.email} added as ${added.role}. Their password (shown only now; they can change it after signing in):\n${added.password}`
      : `user ${added.email} added as ${added.role}`;
    print(opts.json, added, line);
  });
}

/** Lists users with their roles. */
export function userListCommand(opts: { json?: boolean }): Promise<number> {
  return withDb(async (db) => {
    const all = await listUsers(db);
    if (opts.json) return print(true, { users: all }, '');
    for (const u of all) process.stdout.write(`${u.email}  ${u.role}${u.disabled ? '  (disabled)' : ''}  added ${u.createdAt.toISOString()}\n`);
    process.stdout.write(`${all.length} users\n`);
  });
}

function changed(change: UserChange, what: string, json?: boolean): void {
  print(json, change, `user ${change.email} ${what}; their open sessions have ended`);
}

/** Sets a user's role. */
export function userRoleCommand(who: string, role: string, opts: { json?: boolean }): Promise<number> {
  return withDb(async (db) => changed(await setUserRole(db, who, role), `is now ${role.toLowerCase()}`, opts.json));
}

/** Disables or enables a user. */
export function userDisabledCommand(who: string, disabled: boolean, opts: { json?: boolean }): Promise<number> {
  return withDb(async (db) => {
    const change = await setUserDisabled(db, who, disabled);
    if (disabled) changed(change, 'disabled', opts.json);
    else print(opts.json, change, `user ${change.email} enabled`);
  });
}

/** Removes a user. */
export function userRemoveCommand(who: string, opts: { json?: boolean }): Promise<number> {
  return withDb(async (db) => changed(await removeUser(db, who), 'removed', opts.json));
}

/** Sets a user's password (generated and printed once without --password). */
export function userPasswordCommand(who: string, opts: { password?: string; json?: boolean }): Promise<number> {
  return withDb(async (db) => {
    const change = await resetPassword(db, who, opts.password);
    const line = change.password
      ? `user ${change.email} has a new password (shown only now); their open sessions have ended:\n${change.password}`
      : `user ${change.email} has a new password; their open sessions have ended`;
    print(opts.json, change, line);
  });
}
