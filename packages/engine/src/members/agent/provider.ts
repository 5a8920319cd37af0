/**
 * Talking to an OpenAI-compatible chat completions endpoint through the official `openai` SDK:
 * building the client from the member and the environment, retrying what the provider asks us to
 * retry, and mapping every provider failure to a cause (DESIGN.md §4).
 */
import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { AgentMember } from '@trellis/mesh/schema';
import type { StepError } from '../../kernel/errors';
import { asPolicyRefusal } from '../../policy/egress';
import { PolicyRefusedError } from '../../policy/refusal';
import { agentFailure } from './fail';
import { backoffMs, retryAfterMs, sleep } from './retry-after';

/** How often and how long to wait after a 429 or a 5xx before giving up. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** The longest single wait in milliseconds; a longer `retry-after` is cut to this. */
  maxWaitMs: number;
}

/**
 * An SDK client for the member's provider. `apiKey` is the value of the secret
 * `provider.apiKeySecret` (the caller resolved it under the secrets policy) and is kept only in
 * the client. Without `apiKeySecret` the endpoint is assumed to need no key (a local server); the
 * SDK insists on one, so a placeholder is sent. Every SDK setting that would
 * otherwise come from `OPENAI_*` variables is passed explicitly, and the SDK's own retries are
 * off so {@link complete} alone decides.
 * @param timeoutMs per request, in milliseconds.
 * @throws StepError `agent_or_model_missing` when the member has no provider or the key is unset.
 */
export function openProvider(
  member: AgentMember,
  apiKey: string | undefined,
  timeoutMs: number,
  fetchImpl?: typeof fetch,
): OpenAI {
  const provider = member.provider;
  if (!provider) {
    throw agentFailure(member, 'agent_or_model_missing', `model ${member.model} has no provider: set provider.baseUrl (and provider.apiKeySecret), or use model "demo"`, false);
  }
  if (provider.apiKeySecret !== undefined && !apiKey?.trim()) {
    throw agentFailure(member, 'agent_or_model_missing', `the API key secret ${provider.apiKeySecret} is empty or was not given`, false);
  }
  return new OpenAI({
    baseURL: provider.baseUrl,
    apiKey: apiKey?.trim() || 'no-key',
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: 0,
    timeout: timeoutMs,
    logLevel: 'warn',
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}

/**
 * One chat completion, retried on HTTP 429 and 5xx and on dropped connections: the wait is the
 * provider's `retry-after-ms` / `retry-after` (see retry-after.ts; OpenAI's rate-limit guide asks
 * clients to honour it), else exponential backoff, never longer than `retry.maxWaitMs`. Every 429
 * is told to `onRateLimited` (admission makes new runs on the model wait out its retry-after).
 * @throws StepError `timed_out` (the signal aborted or the SDK timeout passed), `rate_limited`
 *   (still 429 after the retries), `agent_or_model_missing` (404, 401, 403), `content_refused`
 *   (the provider's content filter rejected the request), `step_code_failed` otherwise.
 */
export async function complete(
  client: OpenAI,
  member: AgentMember,
  body: ChatCompletionCreateParamsNonStreaming,
  ctx: {
    signal?: AbortSignal;
    retry: RetryPolicy;
    /** Told of every 429 answer, with the provider's retry-after in milliseconds (undefined when it sent none), before the wait or the failure. */
    onRateLimited?: (retryAfterMs: number | undefined) => Promise<void>;
  },
): Promise<ChatCompletion> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await client.chat.completions.create(body, ctx.signal ? { signal: ctx.signal } : {});
    } catch (err) {
      if (ctx.signal?.aborted || err instanceof APIUserAbortError || err instanceof APIConnectionTimeoutError) {
        throw timedOut(member, client);
      }
      // A policy refusal of the provider's host is final: a retry would be refused the same way.
      const refused = policyRefusal(err);
      if (refused) throw agentFailure(member, 'step_code_failed', `its provider ${client.baseURL} was ${refused.message}`, false);
      const asked = err instanceof APIError ? retryAfterMs(err.headers as Headers | undefined) : undefined;
      if (err instanceof RateLimitError) await ctx.onRateLimited?.(asked);
      const again = err instanceof RateLimitError || err instanceof APIConnectionError || (err instanceof APIError && (err.status ?? 0) >= 500);
      if (!again || attempt >= ctx.retry.maxRetries) throw providerFailure(member, client, err, attempt);
      try {
        await sleep(Math.min(asked ?? backoffMs(attempt, ctx.retry.maxWaitMs), ctx.retry.maxWaitMs), ctx.signal);
      } catch {
        throw timedOut(member, client);
      }
    }
  }
}

/** The policy refusal behind a failed provider call (the SDK wraps what fetch threw as APIConnectionError `cause`), if it was one. */
function policyRefusal(err: unknown): PolicyRefusedError | undefined {
  const refused = asPolicyRefusal(err instanceof APIConnectionError ? err.cause : err);
  return refused instanceof PolicyRefusedError ? refused : undefined;
}

function timedOut(member: AgentMember, client: OpenAI): StepError {
  return agentFailure(member, 'timed_out', `the model ${member.model} at ${client.baseURL} did not answer in time`, true);
}

function providerFailure(member: AgentMember, client: OpenAI, err: unknown, retries: number): StepError {
  const at = `${member.model} at ${client.baseURL}`;
  if (err instanceof RateLimitError) {
    return agentFailure(member, 'rate_limited', `the provider still answered 429 Too Many Requests after ${retries} ${retries === 1 ? 'retry' : 'retries'} (${at})`, true);
  }
  if (err instanceof NotFoundError) {
    return agentFailure(member, 'agent_or_model_missing', `the provider does not know the model ${at} (HTTP 404: ${err.message})`, false);
  }
  if (err instanceof AuthenticationError || err instanceof PermissionDeniedError) {
    const key = member.provider?.apiKeySecret !== undefined ? `the secret ${member.provider.apiKeySecret}` : 'no key';
    return agentFailure(member, 'agent_or_model_missing', `the provider refused the API key from ${key} for ${at} (HTTP ${err.status})`, false);
  }
  if (err instanceof APIError && (err.code === 'content_filter' || err.code === 'content_policy_violation')) {
    return agentFailure(member, 'content_refused', `the provider's content filter refused the request (${err.message})`, false);
  }
  if (err instanceof APIConnectionError) {
    return agentFailure(member, 'step_code_failed', `could not reach the provider for ${at}: ${err.message}`, true);
  }
  if (err instanceof APIError) {
    const server = (err.status ?? 0) >= 500;
    return agentFailure(member, 'step_code_failed', `the provider ${server ? 'failed' : 'rejected the request'} for ${at} (HTTP ${err.status ?? '?'}: ${err.message})`, server);
  }
  const why = err instanceof Error ? err.message : String(err);
  return agentFailure(member, 'step_code_failed', `calling ${at} failed: ${why}`, true);
}
