/**
 * The assistant with a model: the `openai` SDK against any OpenAI-compatible endpoint, with tool
 * calls over the query functions (queries.ts). The model chooses tools and words the answer; it
 * never writes SQL, and it cannot re-open anything: `propose_reopen` only previews, and the exact
 * proposal sentence is appended to the reply by this code, not by the model.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';
import type { Engine } from '../kernel/engine';
import type { AskReply, Proposal } from './reply';
import type { ReopenAction } from './confirm';
import type { AssistantModel } from './env';
import { isFullRunId } from './intents';
import { approvalsWaiting, failuresSince, lostMessagesSince, reopenableRunIds, runsMatching, stalledRuns, whyRunFailed } from './queries';
import { startOfLocalDay } from './day';

const WindowArg = z.object({ window: z.enum(['today', 'yesterday', 'week']).default('today') });

const TOOLS: ChatCompletionTool[] = [
  tool('failures', 'Runs that failed or stalled in a window, grouped by mesh and cause, with counts.', {
    window: { type: 'string', enum: ['today', 'yesterday', 'week'] },
  }),
  tool(
    'why_run_failed',
    'Why one run failed, or why it waits: cause, member, sentence, dead-lettered and lost messages, and its admission (what it waits for: a worker, a slot, a model rate limit or a database connection, with an estimate; or the cap that refused it). runId: a full id, an id prefix, or prefix…suffix.',
    { runId: { type: 'string' } },
    ['runId'],
  ),
  tool('stalled_runs', 'Runs flagged stalled right now.', {}),
  tool('lost_messages', 'Messages declared lost in a window, by mesh and member.', { window: { type: 'string', enum: ['today', 'yesterday', 'week'] } }),
  tool('approvals_waiting', 'Approval requests waiting for a person, by mesh and member.', {}),
  tool(
    'propose_reopen',
    'Prepare (not run) a re-open of failed or stalled runs, by run ids or by mesh name and/or failed member (today). The person must answer yes afterwards.',
    {
      runIds: { type: 'array', items: { type: 'string' } },
      meshName: { type: 'string' },
      member: { type: 'string' },
      version: { type: 'string', enum: ['pinned', 'latest'] },
    },
  ),
];

function tool(name: string, description: string, properties: Record<string, unknown>, required: string[] = []): ChatCompletionTool {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties, required, additionalProperties: false } } };
}

const SYSTEM =
  'You answer questions about Trellis runs for operations staff. Use the tools for every figure; never guess a number. ' +
  'Answer in plain words with the numbers the tools return. To re-open runs, call propose_reopen; never claim a run was re-opened.';

const MAX_ROUNDS = 5;

/** Where a window starts in the asker's zone (UTC when absent): calendar days, as on the feed. */
function since(window: 'today' | 'yesterday' | 'week', timeZone: string | undefined): Date {
  return startOfLocalDay(new Date(), timeZone, window === 'yesterday' ? 1 : window === 'week' ? 6 : 0).start;
}

/**
 * Asks the configured model, running the tools it calls, for at most five rounds.
 * @param propose previews a re-open and issues its confirmation token.
 * @param timeZone the asker's IANA zone: where "today" starts (UTC when absent).
 * @throws Error when the provider cannot be reached or answers with an error (the message names it).
 */
export async function askModel(
  engine: Engine,
  model: AssistantModel,
  question: string,
  propose: (action: ReopenAction) => Promise<{ text: string; proposal?: Proposal }>,
  timeZone?: string,
): Promise<AskReply> {
  const client = new OpenAI({ baseURL: model.baseUrl, apiKey: model.apiKey ?? 'no-key', maxRetries: 1, timeout: 60_000, organization: null, project: null });
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: question },
  ];
  let proposed: { text: string; proposal?: Proposal } | undefined;
  const used: string[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const completion = await client.chat.completions.create({ model: model.model, messages, tools: TOOLS });
    const msg = completion.choices[0]?.message;
    if (!msg) throw new Error(`the assistant model ${model.model} sent no answer`);
    const calls = (msg.tool_calls ?? []).filter((c) => c.type === 'function');
    if (calls.length === 0) {
      const parts = [msg.content?.trim() || 'The model gave no answer.'];
      if (proposed) parts.push(proposed.text);
      return { answer: parts.join('\n\n'), via: 'model', intent: used.join(',') || 'none', ...(proposed?.proposal ? { proposal: proposed.proposal } : {}) };
    }
    messages.push({ role: 'assistant', content: msg.content ?? null, tool_calls: calls });
    for (const call of calls) {
      used.push(call.function.name);
      let result: unknown;
      try {
        const args = JSON.parse(call.function.arguments || '{}') as unknown;
        result = await runTool(engine, call.function.name, args, async (action) => (proposed = await propose(action)), timeZone);
      } catch (err) {
        result = { error: err instanceof Error ? err.message : String(err) };
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
    }
  }
  throw new Error(`the assistant model ${model.model} kept calling tools for ${MAX_ROUNDS} rounds without answering`);
}

async function runTool(
  engine: Engine,
  name: string,
  args: unknown,
  propose: (action: ReopenAction) => Promise<{ text: string; proposal?: Proposal }>,
  timeZone: string | undefined,
): Promise<unknown> {
  switch (name) {
    case 'failures':
      return failuresSince(engine.db, since(WindowArg.parse(args).window, timeZone));
    case 'why_run_failed': {
      const ref = z.object({ runId: z.string().min(1) }).parse(args).runId.trim().toLowerCase().replace('...', '…');
      if (isFullRunId(ref)) return (await whyRunFailed(engine.db, ref)) ?? { error: 'no such run' };
      // A shortened id (prefix or prefix…suffix): answer only when it names one run.
      const found = await runsMatching(engine.db, ref);
      const [only] = found;
      if (found.length === 1 && only) return (await whyRunFailed(engine.db, only.runId)) ?? { error: 'no such run' };
      return found.length === 0 ? { error: 'no such run' } : { error: 'several runs match; ask which one is meant', matches: found.slice(0, 5) };
    }
    case 'stalled_runs':
      return stalledRuns(engine.db);
    case 'lost_messages':
      return lostMessagesSince(engine.db, since(WindowArg.parse(args).window, timeZone));
    case 'approvals_waiting':
      return approvalsWaiting(engine.db);
    case 'propose_reopen': {
      const a = z
        .object({ runIds: z.array(z.string()).optional(), meshName: z.string().optional(), member: z.string().optional(), version: z.enum(['pinned', 'latest']).default('pinned') })
        .parse(args);
      const runIds =
        a.runIds && a.runIds.length > 0
          ? a.runIds
          : await reopenableRunIds(engine.db, { ...(a.meshName ? { meshName: a.meshName } : {}), ...(a.member ? { member: a.member } : {}) });
      if (runIds.length === 0) return { error: 'no failed or stalled run today matches' };
      const p = await propose({ kind: 'reopen', runIds, version: a.version });
      return { proposed: p.text, awaitingYes: Boolean(p.proposal) };
    }
    default:
      return { error: `no tool ${name}` };
  }
}
