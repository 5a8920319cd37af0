'use client';
/**
 * The signed-in person's role, for showing only the controls it allows (the server still checks
 * every call: this hides what would be refused, it protects nothing by itself). The rules are the
 * engine's (users/roles.ts), so a button and the procedure it calls always agree.
 */
import { createContext, useContext, type ReactNode } from 'react';
import { roleAllows, type Role, type SignedInRule } from '@trellis/engine/users/roles';

const RoleContext = createContext<Role>('viewer');

/** Provides the role to every control below it (the signed-in layout). */
export function RoleProvider({ role, children }: { role: Role; children: ReactNode }) {
  return <RoleContext.Provider value={role}>{children}</RoleContext.Provider>;
}

/** True when the signed-in person's role allows `rule` (`design`, `run`, `operate`, `admin`, …). */
export function useCan(rule: SignedInRule): boolean {
  return roleAllows(useContext(RoleContext), rule);
}

/** Renders `children` only when the role allows `rule`. */
export function Can({ rule, children }: { rule: SignedInRule; children: ReactNode }) {
  return useCan(rule) ? <>{children}</> : null;
}
