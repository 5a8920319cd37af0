/**
 * The install's egress policy (docs/security.md): which hosts steps, agent providers, tool servers
 * and code may reach. Admins keep it in Postgres (`egress_rules`); with no rows the default from
 * TRELLIS_EGRESS_ALLOW holds (`*`: any public host). Loopback, private, link-local and metadata
 * addresses are refused after DNS resolution and on every redirect hop, unless an admin lists that
 * exact host as internal (sandbox/egress-core.mjs does the checking).
 */
import { asc, eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { egressRules } from '@trellis/db/schema/egress-rules';
import { egressFetch, EgressRefusedError, type EgressPolicy } from '../../sandbox/egress-core.mjs';
import { BadInputError } from '../kernel/errors';
import { appendAuditBy } from '../audit/append';
import { PolicyRefusedError } from './refusal';

export type { EgressPolicy };

/** One admin rule. */
export interface EgressRule {
  pattern: string;
  internal: boolean;
  createdBy: string;
  createdAt: Date;
}

const PATTERN = /^(\*|(\*\.)?[A-Za-z0-9.-]*[A-Za-z0-9](:\d{1,5})?)$/;

/**
 * Adds or replaces a rule.
 * @throws BadInputError naming the field for a malformed pattern, or `internal` on a wildcard.
 */
export async function allowEgress(db: Db, rule: { pattern: string; internal?: boolean; by: string }): Promise<EgressRule> {
  const pattern = rule.pattern.trim().toLowerCase();
  if (!PATTERN.test(pattern)) throw new BadInputError(`pattern ${JSON.stringify(rule.pattern)}: expected *, *.example.com, a host or host:port`);
  const internal = rule.internal ?? false;
  if (internal && pattern.includes('*')) throw new BadInputError(`internal: only an exact host may reach internal addresses, not ${pattern}`);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(egressRules)
      .values({ pattern, internal, createdBy: rule.by })
      .onConflictDoUpdate({ target: egressRules.pattern, set: { internal, createdBy: rule.by } })
      .returning();
    if (!row) throw new Error(`the rule ${pattern} was not stored`);
    await appendAuditBy(tx, rule.by, { action: 'egress.allow', target: pattern, detail: { internal } });
    return row;
  });
}

/** Removes a rule; true when there was one. `by` (a user id, or `cli`) is recorded in the audit trail. */
export async function removeEgressRule(db: Db, pattern: string, by?: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const gone = await tx.delete(egressRules).where(eq(egressRules.pattern, pattern.trim().toLowerCase())).returning();
    if (gone.length > 0) await appendAuditBy(tx, by, { action: 'egress.remove', target: gone[0]?.pattern ?? pattern });
    return gone.length > 0;
  });
}

/** Every admin rule, by pattern. */
export async function listEgressRules(db: Db): Promise<EgressRule[]> {
  return db.select().from(egressRules).orderBy(asc(egressRules.pattern));
}

/** The policy in force: the admin rules, or `fallback` when there are none. */
export async function loadEgressPolicy(db: Db, fallback: readonly string[]): Promise<EgressPolicy> {
  const rules = await listEgressRules(db);
  if (rules.length === 0) return { allow: [...fallback], internal: [] };
  return { allow: rules.map((r) => r.pattern), internal: rules.filter((r) => r.internal).map((r) => r.pattern) };
}

/**
 * `fetch` under `policy`, with egress refusals as PolicyRefusedError (`egress`).
 * @throws PolicyRefusedError for a refused host or address; what fetch throws otherwise.
 */
export async function guardedFetch(policy: EgressPolicy, input: string | URL | Request, init?: RequestInit): Promise<Response> {
  try {
    return await egressFetch(input, init, policy);
  } catch (err) {
    throw asPolicyRefusal(err);
  }
}

/** An EgressRefusedError (also when it is the cause of a wrapped error) as PolicyRefusedError; any other error as it is. */
export function asPolicyRefusal(err: unknown): unknown {
  const inner = err instanceof Error && err.cause instanceof EgressRefusedError ? err.cause : err;
  if (inner instanceof EgressRefusedError) return new PolicyRefusedError('egress', inner.message.replace(/^refused by the egress policy: /, ''));
  return err;
}
