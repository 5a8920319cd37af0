/**
 * Plain-word answers from query results. Every number in an answer is a field of the result it is
 * given; nothing is estimated.
 */
import type { ApprovalGroup, FailureGroup, LostGroup, RunFailure, StalledRun } from './queries';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "today", "yesterday", "in the last 7 days". */
export type WindowWords = string;

/** Which meshes failed (or stalled) and why, with counts per mesh and cause. */
export function answerFailures(groups: readonly FailureGroup[], when: WindowWords): string {
  if (groups.length === 0) return `Nothing failed or stalled ${when}.`;
  const total = groups.reduce((n, g) => n + g.runs, 0);
  const meshes = new Set(groups.map((g) => g.meshName)).size;
  const lines = groups.map((g) => {
    const at = g.members.length > 0 ? ` at ${g.members.join(', ')}` : '';
    return `- ${g.meshName}: ${plural(g.runs, 'run')} ${g.cause}${at} (${g.severity})${g.sentence ? ` — ${g.sentence}` : ''}`;
  });
  return [`${plural(total, 'run')} failed or stalled ${when}, in ${plural(meshes, 'mesh', 'meshes')}:`, ...lines].join('\n');
}

/** Why one run failed. */
export function answerWhy(f: RunFailure | null, runId: string): string {
  if (!f) return `There is no run ${runId}.`;
  if (f.status !== 'failed' && f.status !== 'stalled') {
    const fine = `Run ${f.runId} (${f.meshName} v${f.meshVersion}) did not fail: it is ${f.status}.`;
    return f.admission ? `${fine}\n${f.admission}` : fine;
  }
  const head = `Run ${f.runId} (${f.meshName} v${f.meshVersion}) ${f.status} with cause ${f.cause ?? 'unknown'}${f.causeMember ? ` at member ${f.causeMember}` : ''}.`;
  const parts = [head];
  if (f.sentence) parts.push(f.sentence);
  // A refusal or a wait past its limit is the sentence already; a wait that ended says how long.
  if (f.admission && !f.sentence?.includes(f.admission)) parts.push(f.admission);
  parts.push(`It has ${plural(f.dead, 'dead-lettered message')} and ${plural(f.lost, 'lost message')}.`);
  for (const m of f.broken.slice(0, 5)) parts.push(`- ${m.status} at ${m.member} after ${plural(m.attempts, 'attempt')}: ${m.error ?? 'no error recorded'}`);
  return parts.join('\n');
}

/** Whether anything is stalled. */
export function answerStalled(list: readonly StalledRun[]): string {
  if (list.length === 0) return 'Nothing is stalled right now.';
  const lines = list.slice(0, 10).map((r) => `- ${r.runId} (${r.meshName}): quiet since ${r.movedAt.toISOString()}, ${plural(r.open, 'open message')}`);
  return [`${plural(list.length, 'run is', 'runs are')} stalled:`, ...lines].join('\n');
}

/** Whether any messages were lost. */
export function answerLost(groups: readonly LostGroup[], when: WindowWords): string {
  if (groups.length === 0) return `No messages were lost ${when}.`;
  const total = groups.reduce((n, g) => n + g.messages, 0);
  const lines = groups.map((g) => `- ${g.meshName} at ${g.member}: ${plural(g.messages, 'message')} in ${plural(g.runs, 'run')}`);
  return [`${plural(total, 'message was', 'messages were')} lost ${when}:`, ...lines].join('\n');
}

/** What is waiting for approval. */
export function answerApprovals(groups: readonly ApprovalGroup[]): string {
  if (groups.length === 0) return 'Nothing is waiting for approval.';
  const total = groups.reduce((n, g) => n + g.waiting, 0);
  const lines = groups.map((g) => `- ${g.meshName} at ${g.member}: ${plural(g.waiting, 'request')}, oldest since ${g.oldestAt.toISOString()}`);
  return [`${plural(total, 'approval request is', 'approval requests are')} waiting:`, ...lines, 'Approve or reject them in the Action Center.'].join('\n');
}

/** What the assistant can answer, for questions it did not understand. */
export const HELP =
  'I can answer: what failed today (or yesterday, this week) and why; why did run <id> fail; is anything stalled; ' +
  'were any messages lost; what is waiting for approval. I can also re-open failed runs ("re-open run <id>", ' +
  '"re-open the failed runs of mesh <name> on the latest version") and mark runs urgent ("mark run <id> urgent", ' +
  '"mark the runs of mesh <name> urgent") once you confirm.';
