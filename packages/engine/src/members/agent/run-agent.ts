/**
 * Running one agent member on one payload: the built-in demo, or an OpenAI-compatible model with
 * MCP tools, a step limit and a spend budget. The one entry point of this folder.
 */
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { AgentMember } from '@trellis/mesh/schema';
import { DEFAULT_PRICES, Spend, type AgentBudget, type AgentUsage, type PriceTable } from './budget';
import { demoAnswer } from './demo';
import { agentFailure } from './fail';
import { openToolBox, type McpServerRegistry, type ToolBox, type ToolCallEvent } from './mcp-tools';
import { readAnswer } from './output';
import { complete, openProvider, type RetryPolicy } from './provider';

/** Options of {@link runAgent}; every duration is in milliseconds. */
export interface RunAgentOptions {
  /** Aborting it (e.g. `AbortSignal.timeout(ms)` for the step deadline) fails with `timed_out`. */
  signal?: AbortSignal;
  /** Values tool servers' `envFrom` names (never the process environment); never stored. */
  env: Record<string, string | undefined>;
  /** The provider's API key (the secret `provider.apiKeySecret`, already checked against its hosts); none when absent. */
  apiKey?: string;
  /** Configured MCP tool servers; `member.tools` grants some of them by name. */
  tools?: McpServerRegistry;
  /** Spend limits for this agent: one, or several windows (per run, per day) that all apply. */
  budget?: AgentBudget | readonly AgentBudget[];
  /** Told of every model call's usage as soon as it is known, before the budget is checked (to record spend). */
  onUsage?: (usage: AgentUsage) => Promise<void>;
  /** Told of every 429 Too Many Requests the provider answered, with its retry-after (ms; undefined when none was sent). */
  onRateLimited?: (event: RateLimitedEvent) => Promise<void>;
  /** Told of every tool call (granted or refused) before its result goes back to the model. */
  onToolCall?: (event: ToolCallEvent) => Promise<void>;
  /** Prices per model; {@link DEFAULT_PRICES} when absent. */
  prices?: PriceTable;
  /** The fetch the SDK uses (tests, proxies); the global fetch when absent. */
  fetch?: typeof fetch;
  /** Model calls before giving up, each tool round being one; default 8. */
  maxSteps?: number;
  /** Per model request; default 120 000. */
  requestTimeoutMs?: number;
  /** Retries after HTTP 429/5xx; default 3 retries, each wait at most 30 000. */
  retry?: Partial<RetryPolicy>;
  /** How long a tool server may take to start; default 10 000. Each tool call: default 60 000. */
  toolTimeouts?: { connectMs?: number; callMs?: number };
  /**
   * The delivery's idempotency key: sent with every tool call as `_meta["trellis/idempotency-key"]`,
   * so a tool with outside effects can recognise a redelivered call.
   */
  idempotencyKey?: string;
  /**
   * Applied to every tool result before it goes back to the model or onto the trail, e.g. to hide
   * secret values a tool server was given (the guard's `redact`).
   */
  redact?: (text: string) => string;
}

/** One 429 answer of an agent's provider: the member's `model` at its `provider.baseUrl`. */
export interface RateLimitedEvent {
  model: string;
  baseUrl: string;
  /** The provider's `retry-after-ms` / `retry-after`, in milliseconds; undefined when it sent neither. */
  retryAfterMs: number | undefined;
}

/** What an agent produced. */
export interface AgentResult {
  /** The answer: matching `outputSchema` when the member has one, else `{ text }`. */
  output: unknown;
  /** Tokens and dollars this call used (all zero for the demo). */
  usage: AgentUsage;
  /** True when the built-in deterministic demo answered, not a language model. */
  demo: boolean;
}

/** Default step limit: model calls per agent call. */
export const DEFAULT_MAX_STEPS = 8;

/**
 * Runs an agent member on one payload and returns its output and usage.
 *
 * `model: "demo"` answers with the deterministic demo (see demo.ts), no provider or key needed.
 * Otherwise the instructions are the system message and the payload, as JSON, the user message;
 * with an `outputSchema` the model is asked for structured output (`response_format` json_schema,
 * not strict, since compatible providers differ) and the answer is parsed and checked here.
 * Granted MCP tools are offered to the model; tool calls are run and their results fed back
 * until the model answers or `maxSteps` model calls have been made.
 *
 * @throws StepError with `member` = the member id and one cause:
 *   `agent_or_model_missing` no provider, key variable unset, HTTP 404/401/403, tool server not
 *     configured or its command missing;
 *   `content_refused` the model refused (`message.refusal`) or `finish_reason` is `content_filter`;
 *   `outcome_unreadable` the answer is not JSON, does not match the schema, or was cut off;
 *   `budget_spent` over `budget` (see budget.ts); `rate_limited` still 429 after retries;
 *   `timed_out` the signal aborted or a request timed out;
 *   `step_code_failed` step limit reached, a tool server failed, or any other provider failure.
 */
export async function runAgent(member: AgentMember, payload: unknown, options: RunAgentOptions): Promise<AgentResult> {
  if (member.model === 'demo') {
    if (options.signal?.aborted) throw agentFailure(member, 'timed_out', 'the step was out of time before the demo ran', true);
    return { output: demoAnswer(member, payload), usage: { promptTokens: 0, completionTokens: 0, costUsd: 0 }, demo: true };
  }
  const client = openProvider(member, options.apiKey, options.requestTimeoutMs ?? 120_000, options.fetch);
  const spend = new Spend(member, options.budget ?? {}, options.prices ?? DEFAULT_PRICES);
  spend.ensureRoom();
  const tools = await openToolBox(member, options.tools ?? {}, options.env, {
    ...(options.signal ? { signal: options.signal } : {}),
    connectTimeoutMs: options.toolTimeouts?.connectMs ?? 10_000,
    callTimeoutMs: options.toolTimeouts?.callMs ?? 60_000,
    ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.onToolCall ? { onCall: options.onToolCall } : {}),
    ...(options.redact ? { redact: options.redact } : {}),
  });
  try {
    const output = await loop(member, payload, options, { client, spend, tools });
    return { output, usage: spend.usage(), demo: false };
  } finally {
    await tools.close();
  }
}

async function loop(
  member: AgentMember,
  payload: unknown,
  options: RunAgentOptions,
  { client, spend, tools }: { client: ReturnType<typeof openProvider>; spend: Spend; tools: ToolBox },
): Promise<unknown> {
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const retry: RetryPolicy = { maxRetries: options.retry?.maxRetries ?? 3, maxWaitMs: options.retry?.maxWaitMs ?? 30_000 };
  const messages: ChatCompletionMessageParam[] = [];
  if (member.instructions.trim() !== '') messages.push({ role: 'system', content: member.instructions });
  messages.push({ role: 'user', content: JSON.stringify(payload) ?? 'null' });
  for (let step = 1; step <= maxSteps; step++) {
    const body: ChatCompletionCreateParamsNonStreaming = { model: member.model, messages };
    if (member.temperature !== undefined) body.temperature = member.temperature;
    if (tools.definitions.length > 0) body.tools = tools.definitions;
    if (member.outputSchema) {
      body.response_format = { type: 'json_schema', json_schema: { name: member.id, schema: member.outputSchema, strict: false } };
    }
    const { onRateLimited } = options;
    const completion = await complete(client, member, body, {
      ...(options.signal ? { signal: options.signal } : {}),
      retry,
      ...(onRateLimited ? { onRateLimited: (retryAfterMs: number | undefined) => onRateLimited({ model: member.model, baseUrl: member.provider?.baseUrl ?? client.baseURL, retryAfterMs }) } : {}),
    });
    const promptTokens = completion.usage?.prompt_tokens ?? 0;
    const completionTokens = completion.usage?.completion_tokens ?? 0;
    await options.onUsage?.({ promptTokens, completionTokens, costUsd: spend.costOf(promptTokens, completionTokens) });
    spend.add(promptTokens, completionTokens);
    const choice = completion.choices[0];
    if (!choice) throw agentFailure(member, 'outcome_unreadable', 'the provider answered with no choices', true);
    const { message, finish_reason: finish } = choice;
    if (message.refusal) throw agentFailure(member, 'content_refused', `the model refused: ${message.refusal}`, false);
    if (finish === 'content_filter') throw agentFailure(member, 'content_refused', "the provider's content filter stopped the answer", false);
    const calls = (message.tool_calls ?? []).filter((c) => c.type === 'function');
    if (calls.length > 0) {
      messages.push({ role: 'assistant', content: message.content, tool_calls: calls });
      for (const call of calls) {
        messages.push({ role: 'tool', tool_call_id: call.id, content: await tools.call(call.function.name, call.function.arguments) });
      }
      continue;
    }
    if (finish === 'length') throw agentFailure(member, 'outcome_unreadable', 'the answer was cut off at the token limit', true);
    return readAnswer(member, message.content);
  }
  throw agentFailure(member, 'step_code_failed', `reached the step limit of ${maxSteps} model calls without a final answer`, false);
}
