/**
 * Use case: answer one question of the assistant. Without a model the built-in intent matcher
 * (intents.ts) picks a query; with a model (env.ts) the model picks queries through tool calls
 * over the same functions (tools.ts) and never writes SQL. Either way a re-open, or marking runs
 * urgent (built-in matcher only), is only proposed: the reply states exactly what would happen
 * (N runs, from member M, version) and carries a confirmation token bound to that action; it runs
 * when the same person answers "yes" with it. Both need the `operate` rule of the role policy.
 */
import type { Engine } from '../kernel/engine';
import { previewReopen, reopenRuns } from '../runs/reopen-run';
import { MARK_URGENT_MAX, markUrgentRuns } from '../runs/mark-urgent';
import { answerApprovals, answerFailures, answerLost, answerStalled, answerWhy, HELP } from './answers';
import { issueToken, redeemToken, type ConfirmAction, type ReopenAction } from './confirm';
import type { AssistantModel } from './env';
import { startOfLocalDay } from './day';
import { isFullRunId, matchIntent, type Intent, type Window } from './intents';
import { askModel } from './model';
import type { AskReply, Proposal } from './reply';

export type { AskReply, Proposal } from './reply';
export { isTimeZone } from './day';
import { approvalsWaiting, failuresSince, lostMessagesSince, reopenableRunIds, runsMatching, stalledRuns, urgentCandidates, whyRunFailed } from './queries';
import { ROLES_ALLOWED, roleAllows, type Role } from '../users/roles';

/** A question, and the token of the proposal it may be confirming. */
export interface AskInput {
  question: string;
  /** The token of the last proposal; used only when the question is an explicit "yes". */
  confirmToken?: string;
  userId: string;
  /** The asking person's role: the assistant proposes and performs only what it allows. */
  role: Role;
  /**
   * The asker's IANA time zone (the browser's): "today", "yesterday" and "this week" are calendar
   * days there, as on the exceptions feed and the Runs tab. UTC when absent.
   */
  timeZone?: string;
}

/**
 * Time window start for a window word in the asker's zone (UTC when absent), and how to say it,
 * naming the zone: `today (America/New_York, UTC−05:00)`.
 * @throws RangeError for an unknown zone.
 */
export function windowStart(window: Window, now = new Date(), timeZone?: string): { since: Date; words: string } {
  const back = window === 'yesterday' ? 1 : window === 'week' ? 6 : 0;
  const day = startOfLocalDay(now, timeZone, back);
  if (window === 'yesterday') return { since: day.start, words: `since yesterday (${day.zone})` };
  if (window === 'week') return { since: day.start, words: `in the last 7 days (${day.zone})` };
  return { since: day.start, words: `today (${day.zone})` };
}

/**
 * Answers `input.question`. A "yes" with a valid token runs the proposed action (a re-open, or
 * marking runs urgent, for the person asking); a "yes" without
 * one, or with an expired or foreign token, is answered without doing anything; a "no" (or
 * "cancel") drops the proposal. Shortened run ids (a prefix, or `01a22826…1cf3`) are looked up;
 * when several runs match, the reply names them and asks which one is meant.
 * @throws Error only for a question longer than 2,000 characters or an empty one.
 */
export async function ask(engine: Engine, input: AskInput, model?: AssistantModel): Promise<AskReply> {
  const question = input.question.trim();
  if (question.length === 0) throw new Error('question: expected some text');
  if (question.length > 2000) throw new Error('question: expected at most 2,000 characters');
  const intent = matchIntent(question);
  if (intent.kind === 'confirm') return confirm(engine, input);
  if (intent.kind === 'cancel') {
    const answer = input.confirmToken ? `Cancelled, nothing was ${pendingKind(input) === 'urgent' ? 'marked urgent' : 're-opened'}.` : 'There was nothing waiting for a yes; nothing was done.';
    return { answer, via: 'matcher', intent: 'cancel' };
  }
  if (model) {
    try {
      return await askModel(engine, model, question, (action) => propose(engine, action, input), input.timeZone);
    } catch (err) {
      // The figures do not depend on the model: answer with the built-in matcher and say why.
      const why = err instanceof Error ? err.message : String(err);
      const fallback = await askMatcher(engine, intent, input);
      return { ...fallback, answer: `(The assistant model ${model.model} could not answer: ${why}. Answered with the built-in matcher.)\n${fallback.answer}` };
    }
  }
  return askMatcher(engine, intent, input);
}

/**
 * Resolves run references (full ids, prefixes, `prefix…suffix`) to run ids. Full ids pass as
 * they are; a shortened one must match exactly one run, otherwise the result is a question back
 * naming the runs it matched (or saying none did).
 */
async function resolveRuns(engine: Engine, refs: readonly string[]): Promise<{ ids: string[] } | { ask: string }> {
  const ids: string[] = [];
  for (const ref of refs) {
    if (isFullRunId(ref)) {
      ids.push(ref);
      continue;
    }
    const found = await runsMatching(engine.db, ref);
    const [only] = found;
    if (found.length === 0) return { ask: `No run id starts with ${ref.replace('…', ' and ends with ')}. Which run do you mean?` };
    if (found.length === 1 && only) {
      ids.push(only.runId);
      continue;
    }
    const listed = found.slice(0, 5).map((r) => `- ${r.runId} (${r.meshName}, ${r.status}, started ${r.createdAt.toISOString()})`);
    const more = found.length > 5 ? 'More than 5 runs match' : `${found.length} runs match`;
    return { ask: [`${more} ${ref}; which one do you mean? Give more of its id:`, ...listed].join('\n') };
  }
  return { ids };
}

async function askMatcher(engine: Engine, intent: Exclude<Intent, { kind: 'confirm' | 'cancel' }>, asker: Asker): Promise<AskReply> {
  const reply = (answer: string, name: string, proposal?: Proposal): AskReply => ({ answer, via: 'matcher', intent: name, ...(proposal ? { proposal } : {}) });
  switch (intent.kind) {
    case 'failures': {
      const w = windowStart(intent.window, new Date(), asker.timeZone);
      return reply(answerFailures(await failuresSince(engine.db, w.since), w.words), 'failures');
    }
    case 'why': {
      const runs = await resolveRuns(engine, [intent.runId]);
      if ('ask' in runs) return reply(runs.ask, 'why');
      const runId = runs.ids[0] ?? intent.runId;
      return reply(answerWhy(await whyRunFailed(engine.db, runId), runId), 'why');
    }
    case 'stalled':
      return reply(answerStalled(await stalledRuns(engine.db)), 'stalled');
    case 'lost': {
      const w = windowStart(intent.window, new Date(), asker.timeZone);
      return reply(answerLost(await lostMessagesSince(engine.db, w.since), w.words), 'lost');
    }
    case 'approvals':
      return reply(answerApprovals(await approvalsWaiting(engine.db)), 'approvals');
    case 'reopen': {
      const named = await resolveRuns(engine, intent.runIds);
      if ('ask' in named) return reply(named.ask, 'reopen');
      const runIds =
        named.ids.length > 0
          ? named.ids
          : await reopenableRunIds(engine.db, { ...(intent.meshName ? { meshName: intent.meshName } : {}), ...(intent.member ? { member: intent.member } : {}) });
      if (runIds.length === 0) {
        const of = `${intent.meshName ? ` of mesh ${intent.meshName}` : ''}${intent.member ? ` at member ${intent.member}` : ''}`;
        return reply(`I found no failed or stalled run${of} today to re-open; name the runs by id to re-open older ones.`, 'reopen');
      }
      const p = await propose(engine, { kind: 'reopen', runIds, version: intent.version }, asker);
      return reply(p.text, 'reopen', p.proposal);
    }
    case 'urgent': {
      const named = await resolveRuns(engine, intent.runIds);
      if ('ask' in named) return reply(named.ask, 'urgent');
      if (named.ids.length === 0 && !intent.meshName) return reply('Which runs should I mark urgent? Name them by id, or say "mark the runs of mesh <name> urgent".', 'urgent');
      const p = await proposeUrgent(engine, named.ids.length > 0 ? { runIds: named.ids } : { meshName: intent.meshName ?? '' }, asker);
      return reply(p.text, 'urgent', p.proposal);
    }
    case 'help':
      return reply(HELP, 'help');
  }
}

/** The kind of action a pending token stands for, when it is this person's and still valid. */
function pendingKind(input: AskInput): ConfirmAction['kind'] | undefined {
  try {
    return input.confirmToken ? redeemToken(input.confirmToken, input.userId).kind : undefined;
  } catch {
    return undefined;
  }
}

/** Who is asking: the assistant acts for them, within their role. */
export type Asker = Pick<AskInput, 'userId' | 'role' | 'timeZone'>;

/** The role policy's answer when the asker may not do `what` (e.g. "re-opening runs"). */
function operateRefusal(what: string, role: Role): string {
  return `Refused by the role policy: ${what} needs "operate" (${ROLES_ALLOWED.operate.join(', ')}); you are ${role}. Nothing was done.`;
}

const ACTION_WORDS: Record<ConfirmAction['kind'], string> = { reopen: 're-opening runs', urgent: 'marking runs urgent' };

/** Previews a re-open and, when something would be re-opened, issues the token for it. */
export async function propose(engine: Engine, action: ReopenAction, asker: Asker): Promise<{ text: string; proposal?: Proposal }> {
  if (!roleAllows(asker.role, 'operate')) return { text: operateRefusal(ACTION_WORDS.reopen, asker.role) };
  const preview = await previewReopen(engine.db, { runIds: action.runIds, version: action.version });
  const refusedLines = preview.refused.slice(0, 5).map((r) => `- ${r.runId}: ${r.reason}`);
  if (preview.runs === 0) {
    return { text: ['None of those runs can be re-opened:', ...refusedLines].join('\n') };
  }
  const runIds = preview.items.map((i) => i.runId);
  const proposal: Proposal = { kind: 'reopen', token: issueToken({ kind: 'reopen', runIds, version: action.version }, asker.userId), summary: preview.summary, runIds, version: action.version };
  const lines = [preview.summary];
  if (preview.refused.length > 0) lines.push(`${preview.refused.length} other ${preview.refused.length === 1 ? 'run is' : 'runs are'} left out:`, ...refusedLines);
  lines.push('Reply "yes" to go ahead; anything else cancels.');
  return { text: lines.join('\n'), proposal };
}

/**
 * Proposes marking runs urgent: the runs named (`runIds`) or the open runs of mesh `meshName`.
 * States how many would be marked and which are left out (ended, unknown, already urgent), and
 * issues the token for the rest; nothing is marked until the same person says "yes" with it.
 */
export async function proposeUrgent(engine: Engine, target: { runIds: string[] } | { meshName: string }, asker: Asker): Promise<{ text: string; proposal?: Proposal }> {
  if (!roleAllows(asker.role, 'operate')) return { text: operateRefusal(ACTION_WORDS.urgent, asker.role) };
  const found = await urgentCandidates(engine.db, { ...target, limit: MARK_URGENT_MAX });
  const known = new Map(found.map((r) => [r.runId, r]));
  const wanted = 'runIds' in target ? target.runIds : found.map((r) => r.runId);
  if (wanted.length === 0) return { text: `Mesh ${'meshName' in target ? target.meshName : ''} has no queued, running or stalled run to mark urgent; nothing was done.` };
  const left: string[] = [];
  const runIds: string[] = [];
  for (const id of wanted) {
    const run = known.get(id);
    if (!run) left.push(`- ${id}: no such run`);
    else if (!['queued', 'running', 'stalled'].includes(run.status)) left.push(`- ${id}: it has already ended (${run.status})`);
    else if (run.urgent) left.push(`- ${id}: it is urgent already`);
    else runIds.push(id);
  }
  if (runIds.length === 0) return { text: ['None of those runs can be marked urgent:', ...left.slice(0, 5)].join('\n') };
  const n = runIds.length === 1 ? '1 run' : `${runIds.length} runs`;
  const of = 'meshName' in target ? ` of mesh ${target.meshName}` : '';
  const summary = `Mark ${n}${of} urgent: their waiting messages go ahead of normal work on every pool they reach (normal work keeps its reserved share).`;
  const proposal: Proposal = { kind: 'urgent', token: issueToken({ kind: 'urgent', runIds }, asker.userId), summary, runIds };
  const lines = [summary];
  if (runIds.length <= 5) lines.push(...runIds.map((id) => `- ${id}`));
  if (left.length > 0) lines.push(`${left.length} other ${left.length === 1 ? 'run is' : 'runs are'} left out:`, ...left.slice(0, 5));
  lines.push('Reply "yes" to go ahead; anything else cancels.');
  return { text: lines.join('\n'), proposal };
}

async function confirm(engine: Engine, input: AskInput): Promise<AskReply> {
  const answer = (text: string): AskReply => ({ answer: text, via: 'matcher', intent: 'confirm' });
  if (!input.confirmToken) return answer('There is nothing waiting for a yes. Ask me to re-open runs or mark runs urgent first.');
  let action: ConfirmAction;
  try {
    action = redeemToken(input.confirmToken, input.userId);
  } catch (err) {
    return answer(`Nothing was done: ${err instanceof Error ? err.message : String(err)}.`);
  }
  // The role is checked again at the yes: it may have changed since the proposal.
  if (!roleAllows(input.role, 'operate')) return answer(operateRefusal(ACTION_WORDS[action.kind], input.role));
  if (action.kind === 'urgent') {
    const result = await markUrgentRuns(engine, { runIds: action.runIds, userId: input.userId });
    const n = result.marked.length;
    const moved = result.moved === 1 ? '1 waiting message' : `${result.moved} waiting messages`;
    // The in-process bus reads the flag at every claim: nothing moves there.
    const after = engine.localBus ? 'Their waiting messages are claimed first from now on.' : `Moved ${moved} to the urgent lanes.`;
    const lines = [`Marked ${n === 1 ? '1 run' : `${n} runs`} urgent${n > 0 ? `: ${result.marked.join(', ')}` : ''}. ${after}`];
    for (const r of result.refused) lines.push(`- not marked ${r.runId}: ${r.reason}`);
    return answer(lines.join('\n'));
  }
  const result = await reopenRuns(engine, { runIds: action.runIds, version: action.version, userId: input.userId });
  const n = result.reopened.length;
  const lines = [`Re-opened ${n === 1 ? '1 run' : `${n} runs`}${n > 0 ? `: ${result.reopened.map((r) => `${r.runId} (attempt ${r.attempt}, v${r.toVersion})`).join(', ')}` : ''}.`];
  for (const r of result.refused) lines.push(`- not re-opened ${r.runId}: ${r.reason}`);
  return answer(lines.join('\n'));
}
