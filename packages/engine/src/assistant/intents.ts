/**
 * The built-in intent matcher: maps a question to one query function with keywords and regular
 * expressions, so the assistant works without a model. Checked in this order (first match wins):
 *
 * | intent       | matches (case-insensitive)                                             |
 * |--------------|------------------------------------------------------------------------|
 * | confirm      | the whole message is "yes" (optionally "yes, go ahead", "yes please")  |
 * | reopen       | "re-open" / "reopen" / "retry" / "rerun", with run ids, or "failed runs" plus `mesh <name>`, `member <id>`, "latest" |
 * | why          | "why" with a run id (a UUID), or "run <id>" with fail/cause/wrong      |
 * | stalled      | "stall", "stuck", "hanging", "not moving"                              |
 * | lost         | "lost", "missing message", "vanish"                                    |
 * | approvals    | "approv", "waiting for (a) sign-off", "pending review"                 |
 * | failures     | "fail", "broke", "broken", "error", "wrong", "exception", "what happened" |
 * | help         | anything else                                                          |
 *
 * Time words for failures and lost messages: "today" (default), "yesterday", "this week" /
 * "7 days" / "last week".
 */

/** What the matcher understood. */
export type Intent =
  | { kind: 'confirm' }
  | { kind: 'reopen'; runIds: string[]; meshName?: string; member?: string; version: 'pinned' | 'latest' }
  | { kind: 'why'; runId: string }
  | { kind: 'stalled' }
  | { kind: 'lost'; window: Window }
  | { kind: 'approvals' }
  | { kind: 'failures'; window: Window }
  | { kind: 'help' };

/** The time a question asks about. */
export type Window = 'today' | 'yesterday' | 'week';

const RUN_ID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

function windowOf(q: string): Window {
  if (/\byesterday\b/.test(q)) return 'yesterday';
  if (/\b(this|last|past) week\b|\b7 days\b|\bseven days\b/.test(q)) return 'week';
  return 'today';
}

/** Maps `question` to an intent; never throws. */
export function matchIntent(question: string): Intent {
  const q = question.trim().toLowerCase();
  if (/^(yes|y|yes please|yes, go ahead|yes go ahead|go ahead|confirm|yes, do it|yes do it)[.!]?$/.test(q)) return { kind: 'confirm' };
  const runIds = [...new Set((question.match(RUN_ID) ?? []).map((id) => id.toLowerCase()))];
  if (/\b(re-?open|retry|re-?run|restart)\b/.test(q)) {
    const mesh = /\bmesh\s+["'`]?([a-z0-9][\w.-]*)/i.exec(question)?.[1];
    const member = /\b(?:member|step)\s+["'`]?([a-z0-9][\w.-]*)/i.exec(question)?.[1];
    const version = /\blatest\b|\bnewest\b|\bnew version\b|\bthe fix\b/.test(q) ? 'latest' : 'pinned';
    return {
      kind: 'reopen',
      runIds,
      ...(mesh && mesh.toLowerCase() !== 'on' ? { meshName: mesh } : {}),
      ...(member && !/^[0-9a-f]{8}-/i.test(member) ? { member } : {}),
      version,
    };
  }
  const firstRun = runIds[0];
  if (firstRun && /\bwhy\b|\bfail|\bcause|\bwrong|\bhappened|\bbroke/.test(q)) return { kind: 'why', runId: firstRun };
  if (/\bstall|\bstuck\b|\bhanging\b|\bnot moving\b/.test(q)) return { kind: 'stalled' };
  if (/\blost\b|\bmissing messages?\b|\bvanish/.test(q)) return { kind: 'lost', window: windowOf(q) };
  if (/\bapprov|\bsign-?off\b|\bpending review\b/.test(q)) return { kind: 'approvals' };
  if (/\bfail|\bbroke|\bbroken\b|\berror|\bwrong\b|\bexception|\bwhat happened\b/.test(q)) return { kind: 'failures', window: windowOf(q) };
  return { kind: 'help' };
}
