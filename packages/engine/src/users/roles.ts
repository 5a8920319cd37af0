/**
 * The four roles and the access rules every tRPC procedure and REST route names (issue 12, "People
 * and access"). A rule is a capability, not a rank: a designer runs meshes but does not triage the
 * Action Center, an operator re-opens runs but does not edit meshes.
 */
import { BadInputError } from '../kernel/errors';

/** Roles, most to least powerful. */
export const ROLES = ['admin', 'designer', 'operator', 'viewer'] as const;
/** One of {@link ROLES}. */
export type Role = (typeof ROLES)[number];

/**
 * What a procedure or route asks of its caller: `public` (nobody needs to sign in), `self` (any
 * signed-in person acting on their own account), `read`, `design` (create, edit and import meshes),
 * `run` (start runs), `operate` (re-open and cancel runs, approvals, Action Center decisions, the
 * assistant's re-open) and `admin` (users, services, tokens of others, secrets, policies).
 */
export const ACCESS_RULES = ['public', 'self', 'read', 'design', 'run', 'operate', 'admin'] as const;
/** One of {@link ACCESS_RULES}. */
export type AccessRule = (typeof ACCESS_RULES)[number];
/** A rule that needs a signed-in caller. */
export type SignedInRule = Exclude<AccessRule, 'public'>;

/** The one policy table: which roles each rule lets through. */
export const ROLES_ALLOWED: Readonly<Record<SignedInRule, readonly Role[]>> = {
  self: ROLES,
  read: ROLES,
  design: ['admin', 'designer'],
  run: ['admin', 'designer', 'operator'],
  operate: ['admin', 'operator'],
  admin: ['admin'],
};

/** True when `role` may do what `rule` guards. */
export function roleAllows(role: Role, rule: AccessRule): boolean {
  return rule === 'public' || ROLES_ALLOWED[rule].includes(role);
}

/** Parses a stored or typed role. @throws BadInputError naming the field and the roles there are. */
export function parseRole(value: string, field = 'role'): Role {
  const role = ROLES.find((r) => r === value.trim().toLowerCase());
  if (!role) throw new BadInputError(`${field}: ${JSON.stringify(value)} is not a role; expected one of ${ROLES.join(', ')}`);
  return role;
}
