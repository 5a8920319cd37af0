/**
 * The built-in intent matcher: maps a question to one query function with keywords and regular
 * expressions, so the assistant works without a model. Checked in this order (first match wins):
 *
 * | intent       | matches (case-insensitive)                                             |
 * |--------------|------------------------------------------------------------------------|
 * | confirm      | the whole message is "yes" (optionally "yes, go ahead", "yes please")  |
 * | cancel       | the whole message is "no" (or "no thanks", "nope", "cancel", "don't")  |
 * | reopen       | "re-open" / "reopen" / "retry" / "rerun", with run ids, or "failed runs" plus `mesh <name>`, `member <id>`, "latest" |
 * | urgent       | "mark" / "make" / "flag" / "set" … "urgent", "expedite", "prioritise", not asked as a question ("why is…"), with run ids or `mesh <name>` |
 * | why          | "why" / fail / cause / wrong / wait / start with a run reference (below) |
 * | stalled      | "stall", "stuck", "hanging", "not moving"                              |
 * | lost         | "lost", "missing message", "vanish"                                    |
 * | approvals    | "approv", "waiting for (a) sign-off", "pending review"                 |
 * | failures     | "fail", "broke", "broken", "error", "wrong", "exception", "what happened" |
 * | help         | anything else                                                          |
 *
 * Time words for failures and lost messages: "today" (default), "yesterday", "this week" /
 * "7 days" / "last week".
 *
 * A run reference is a full run id (a UUID), the form run lists show (`01a22826…1cf3`, first
 * 8 and last 4 characters, "…" or "..."), or an id prefix of at least 6 hex characters that
 * follows the word "run" or mixes digits and letters (so "decade", "100000" or a date like
 * 2026-03-02 elsewhere in a question are not taken for one).
 * References other than full ids are resolved against the runs table by the caller
 * ({@link isFullRunId}, queries.ts `runsMatching`).
 */

/** What the matcher understood. */
export type Intent =
  | { kind: 'confirm' }
  | { kind: 'cancel' }
  | { kind: 'reopen'; runIds: string[]; meshName?: string; member?: string; version: 'pinned' | 'latest' }
  /** Mark runs urgent: the runs named, else the open runs of mesh `meshName`. */
  | { kind: 'urgent'; runIds: string[]; meshName?: string }
  /** `runId` is a run reference: a full id, a prefix, or `prefix…suffix`. */
  | { kind: 'why'; runId: string }
  | { kind: 'stalled' }
  | { kind: 'lost'; window: Window }
  | { kind: 'approvals' }
  | { kind: 'failures'; window: Window }
  | { kind: 'help' };

/** The time a question asks about. */
export type Window = 'today' | 'yesterday' | 'week';

const FULL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// Full ids, `prefix…suffix` (the shortened form run lists show) and bare prefixes, longest first.
const RUN_REF =
  /(?<![\w-])(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f][0-9a-f-]{5,35}(?:…|\.\.\.)[0-9a-f-]{1,35}[0-9a-f]|[0-9a-f][0-9a-f-]{4,34}[0-9a-f])(?![\w-])/gi;

/** Whether `ref` is a whole run id (a UUID) rather than a prefix or a `prefix…suffix` form. */
export function isFullRunId(ref: string): boolean {
  return FULL_ID.test(ref);
}

/** The run references in `question`, lower-cased, in order, without repeats. */
function runRefsIn(question: string): string[] {
  const out: string[] = [];
  for (const m of question.matchAll(RUN_REF)) {
    const ref = m[0].toLowerCase().replace('...', '…');
    const bare = !ref.includes('…') && !isFullRunId(ref);
    // A bare prefix: 6+ hex characters right after "run", or mixing digits and letters.
    const afterRun = /\bruns?\s+$/i.test(question.slice(0, m.index));
    if (bare && (ref.replace(/-/g, '').length < 6 || (!afterRun && !(/\d/.test(ref) && /[a-f]/.test(ref))))) continue;
    if (!out.includes(ref)) out.push(ref);
  }
  return out;
}

/** The word after "mesh" (a mesh name as typed), when there is one. */
function meshNamed(question: string): string | undefined {
  return /\bmesh\s+["'`]?([a-z0-9][\w.-]*)/i.exec(question)?.[1];
}

function windowOf(q: string): Window {
  if (/\byesterday\b/.test(q)) return 'yesterday';
  if (/\b(this|last|past) week\b|\b7 days\b|\bseven days\b/.test(q)) return 'week';
  return 'today';
}

/** Maps `question` to an intent; never throws. */
export function matchIntent(question: string): Intent {
  const q = question.trim().toLowerCase();
  if (/^(yes|y|yes please|yes, go ahead|yes go ahead|go ahead|confirm|yes, do it|yes do it)[.!]?$/.test(q)) return { kind: 'confirm' };
  if (/^(no|n|nope|no thanks|no, thanks|no thank you|no, thank you|cancel|no, cancel|no cancel|don't|do not|stop|never ?mind)[.!]?$/.test(q)) return { kind: 'cancel' };
  const runIds = runRefsIn(question);
  if (/\b(re-?open|retry|re-?run|restart)\b/.test(q)) {
    const mesh = meshNamed(question);
    const member = /\b(?:member|step)\s+["'`]?([a-z0-9][\w.-]*)/i.exec(question)?.[1];
    const version = /\blatest\b|\bnewest\b|\bnew version\b|\bthe fix\b/.test(q) ? 'latest' : 'pinned';
    return {
      kind: 'reopen',
      runIds,
      ...(mesh && mesh.toLowerCase() !== 'on' ? { meshName: mesh } : {}),
      ...(member && !runIds.includes(member.toLowerCase()) && !/^[0-9a-f]{8}-/i.test(member) ? { member } : {}),
      version,
    };
  }
  const asking = /^(why|is|are|was|were|did|does|do|how|what|which|when|who)\b/.test(q);
  if (!asking && (/\b(mark|make|flag|set)\b[^?]*\burgent\b/.test(q) || /\bexpedite\b|\bprioriti[sz]e\b/.test(q))) {
    const mesh = meshNamed(question);
    return { kind: 'urgent', runIds, ...(mesh && !['urgent', 'as'].includes(mesh.toLowerCase()) ? { meshName: mesh } : {}) };
  }
  const firstRun = runIds[0];
  if (firstRun && /\bwhy\b|\bfail|\bcause|\bwrong|\bhappened|\bbroke|\bwait|\bstart/.test(q)) return { kind: 'why', runId: firstRun };
  if (/\bstall|\bstuck\b|\bhanging\b|\bnot moving\b/.test(q)) return { kind: 'stalled' };
  if (/\blost\b|\bmissing messages?\b|\bvanish/.test(q)) return { kind: 'lost', window: windowOf(q) };
  if (/\bapprov|\bsign-?off\b|\bpending review\b/.test(q)) return { kind: 'approvals' };
  if (/\bfail|\bbroke|\bbroken\b|\berror|\bwrong\b|\bexception|\bwhat happened\b/.test(q)) return { kind: 'failures', window: windowOf(q) };
  return { kind: 'help' };
}
