/**
 * Token scopes (issue 12): read < run < operate < admin, each including the ones before it. A token
 * acts with the lesser of its owner's role and its scope; a person may only create tokens within
 * their role (a viewer's tokens read, a designer's run, an operator's operate).
 */
import type { Role, SignedInRule } from '../users/roles';

/** Scopes, least to most. */
export const SCOPES = ['read', 'run', 'operate', 'admin'] as const;
/** One of {@link SCOPES}. */
export type Scope = (typeof SCOPES)[number];

/** The scope a rule needs from a token. Designing counts as `run`; acting on one's account needs `admin`. */
export const SCOPE_FOR_RULE: Readonly<Record<SignedInRule, Scope>> = {
  read: 'read',
  run: 'run',
  design: 'run',
  operate: 'operate',
  admin: 'admin',
  self: 'admin',
};

/** The widest scope a role may give its own tokens. */
export const MAX_SCOPE: Readonly<Record<Role, Scope>> = { viewer: 'read', designer: 'run', operator: 'operate', admin: 'admin' };

/** True when `scope` includes `needed`. */
export function scopeIncludes(scope: Scope, needed: Scope): boolean {
  return SCOPES.indexOf(scope) >= SCOPES.indexOf(needed);
}
