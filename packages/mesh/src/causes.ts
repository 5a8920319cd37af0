/**
 * The fixed list of causes (DESIGN.md §4): every failed run gets exactly one, with a severity,
 * who acts on it, and a plain sentence naming the member and the detail.
 */

/** The twelve causes, most urgent first. */
export const CAUSES = [
  'message_lost',
  'outcome_unreadable',
  'step_code_failed',
  'input_rejected',
  'content_refused',
  'budget_spent',
  'agent_or_model_missing',
  'timed_out',
  'rate_limited',
  'capacity_wait_exceeded',
  'no_worker',
  'stalled',
] as const;

/** Why a run failed. */
export type Cause = (typeof CAUSES)[number];

/** `critical`: someone must look now; `project`: the people who run and fix the mesh (operator, admin, designer); `capacity`: platform or provider. */
export type CauseSeverity = 'critical' | 'project' | 'capacity';

/** What Trellis knows about a cause. */
export interface CauseInfo {
  cause: Cause;
  severity: CauseSeverity;
  /** Who acts on it, in plain words. */
  whoActs: string;
  /** A short title for lists, e.g. `Timed out`. */
  title: string;
  /** What happened, after the runs it happened to: `14 runs` + `ran out of time`. */
  happened: string;
}

const WHO_ACTS: Record<CauseSeverity, string> = {
  critical: 'someone must look now',
  project: 'an operator or admin, with a designer when the mesh needs a fix',
  capacity: 'platform or provider',
};

const TABLE: Record<
  Cause,
  { severity: CauseSeverity; title: string; happened: string; note?: string }
> = {
  message_lost: { severity: 'critical', title: 'Message lost', happened: 'lost a message' },
  outcome_unreadable: {
    severity: 'critical',
    title: 'Outcome unreadable',
    happened: 'ended with an outcome that could not be read',
    note: 'never counted a success',
  },
  step_code_failed: {
    severity: 'project',
    title: 'Step code failed',
    happened: 'failed in step code',
  },
  input_rejected: { severity: 'project', title: 'Input rejected', happened: 'had input rejected' },
  content_refused: {
    severity: 'project',
    title: 'Content refused',
    happened: 'had content refused by the model',
  },
  budget_spent: { severity: 'project', title: 'Budget spent', happened: 'ran out of budget' },
  agent_or_model_missing: {
    severity: 'project',
    title: 'Agent or model missing',
    happened: 'could not find the agent or model',
  },
  timed_out: { severity: 'capacity', title: 'Timed out', happened: 'ran out of time' },
  rate_limited: { severity: 'capacity', title: 'Rate limited', happened: 'hit a rate limit' },
  capacity_wait_exceeded: {
    severity: 'capacity',
    title: 'Capacity wait exceeded',
    happened: 'waited too long for capacity',
  },
  no_worker: { severity: 'capacity', title: 'No worker', happened: 'found no worker' },
  stalled: { severity: 'capacity', title: 'Stalled', happened: 'stalled' },
};

/** True when `x` is one of the twelve causes. */
export function isCause(x: unknown): x is Cause {
  return typeof x === 'string' && Object.hasOwn(TABLE, x);
}

/** Severity, who acts, title and phrase of a cause. */
export function causeInfo(cause: Cause): CauseInfo {
  const row = TABLE[cause];
  const whoActs =
    row.note === undefined ? WHO_ACTS[row.severity] : `${WHO_ACTS[row.severity]} (${row.note})`;
  return { cause, severity: row.severity, whoActs, title: row.title, happened: row.happened };
}

/** What {@link causeSentence} needs: the cause, the member's name for people, and the detail. */
export interface CauseSentenceInput {
  cause: Cause;
  /** The member's label (or id) where it happened, when known. */
  member?: string;
  /** What exactly happened, in plain words. */
  detail?: string;
  /** How many runs this sentence speaks for; absent for a single run's own page. */
  runs?: number;
  /** The type of the workflow step it happened in (`sql`, `http`, `agent`, …), when known. */
  step?: string;
}

/**
 * A plain sentence naming the member, the step type when known, and the detail, e.g.
 * `14 runs ran out of time at Records check: the outside service had no worker after 18:00.` or
 * `The run failed in the sql step at Ledger: its SQL query failed: …`.
 */
export function causeSentence({ cause, member, detail, runs, step }: CauseSentenceInput): string {
  const subject = runs === undefined ? 'The run' : `${runs} ${runs === 1 ? 'run' : 'runs'}`;
  const inStep = step === undefined || step.trim() === '' ? '' : ` in the ${step.trim()} step`;
  // Every phrase reads the same after one run or many, so no grammar is needed here. A named step
  // says where it failed, so "in step code" would be wrong for an sql, http or agent step.
  const happened = inStep !== '' && cause === 'step_code_failed' ? 'failed' : TABLE[cause].happened;
  const where = `${inStep}${member === undefined || member.trim() === '' ? '' : ` at ${member.trim()}`}`;
  const said = detail?.trim() ?? '';
  const sentence =
    said === '' ? `${subject} ${happened}${where}` : `${subject} ${happened}${where}: ${said}`;
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
