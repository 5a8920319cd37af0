/** The built-in `http` step: one request to an allowed host, its answer written into a payload field. */
import { hostAllowed, templateHost, urlPlaceholders } from '@trellis/mesh/member-config';
import type { HttpStep } from '@trellis/mesh/schema';
import { StepError } from '../../../kernel/errors';
import { getField } from '../../../plan/frames';
import type { Guard } from '../../../policy/guard';
import { PolicyRefusedError } from '../../../policy/refusal';
import { errorText, withField } from './payload';
import type { EffectStep } from './types';

/** An effect step (see {@link runHttpStep}); `key` is sent as the `Idempotency-Key` header. */
export const httpStep: EffectStep<'http'> = {
  lane: 'effect',
  run: (memberId, step, payload, ctx, key) => runHttpStep(memberId, step, payload, ctx.policy, { key, ...(ctx.run?.signal ? { signal: ctx.run.signal } : {}) }),
};

/** Largest response body an HTTP step reads, in bytes. */
const MAX_HTTP_BODY = 8 * 1024 * 1024;

/**
 * The URL of an HTTP step for one payload: each `{field}` replaced by the payload value,
 * URL-encoded (a missing field is an error, not an empty segment).
 * @throws StepError `step_code_failed` for a missing field or a host not in `allowHosts`.
 */
export function buildUrl(memberId: string, step: HttpStep, payload: unknown): URL {
  const at = templateHost(step.url);
  if ('error' in at) throw new StepError('step_code_failed', memberId, `its HTTP step URL ${at.error}`, false);
  for (const p of urlPlaceholders(step.url)) {
    const v = getField(payload, p);
    if (v === null || v === undefined || typeof v === 'object') {
      throw new StepError('step_code_failed', memberId, `its HTTP step URL needs the field ${p}, which is ${v === null || v === undefined ? 'missing' : 'not a single value'}`, false);
    }
  }
  const url = new URL(step.url.replace(/\{([^{}]*)\}/g, (_, p: string) => encodeURIComponent(String(getField(payload, p)))));
  if (!hostAllowed(url.host, step.allowHosts)) {
    throw new StepError('step_code_failed', memberId, `its HTTP step may not call ${url.host}: it is not in allowHosts (${step.allowHosts.join(', ')})`, false);
  }
  return url;
}

/**
 * Runs an HTTP step: refuses any host not in `allowHosts` or the install's egress policy (checked
 * after DNS resolution, see policy/egress.ts), sets headers from the named secrets of the store
 * (each only for a host on its list), sends the `body` field (or the payload) as JSON for methods
 * with a body, never follows redirects, and writes the response (JSON when it parses, else text,
 * with any secret value it echoes redacted) to the payload field `into`.
 * @throws StepError `timed_out` past `timeoutMs`; `rate_limited` for HTTP 429; `step_code_failed`
 *   for a missing field, a redirect or any other non-2xx answer (retryable for 5xx and network
 *   errors); PolicyRefusedError for a refused host, address or secret.
 */
export async function runHttpStep(
  memberId: string,
  step: HttpStep,
  payload: unknown,
  policy: Guard,
  delivery: { key?: string; signal?: AbortSignal } = {},
): Promise<unknown> {
  const url = buildUrl(memberId, step, payload);
  const headers: Record<string, string> = {};
  // The IETF httpapi Idempotency-Key draft: the same key on every retry of the same effect.
  if (delivery.key) headers['idempotency-key'] = delivery.key;
  for (const [name, ref] of Object.entries(step.headers ?? {})) headers[name] = await policy.secretFor(ref.secret, url, `its HTTP step header ${name}`);
  let body: string | undefined;
  if (step.method !== 'GET' && step.method !== 'DELETE') {
    body = JSON.stringify(step.body === undefined ? payload : getField(payload, step.body));
    headers['content-type'] ??= 'application/json';
  }
  let res: Response;
  try {
    const timeout = AbortSignal.timeout(step.timeoutMs);
    const signal = delivery.signal ? AbortSignal.any([timeout, delivery.signal]) : timeout;
    res = await policy.fetch(url, { method: step.method, headers, body, redirect: 'manual', signal });
  } catch (err) {
    if (err instanceof PolicyRefusedError) throw err;
    if (delivery.signal?.aborted) throw delivery.signal.reason instanceof Error ? delivery.signal.reason : err;
    if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
      throw new StepError('timed_out', memberId, `its HTTP ${step.method} to ${url.host} took longer than ${step.timeoutMs} ms`);
    }
    const why = err instanceof Error && err.cause instanceof Error ? err.cause.message : errorText(err);
    throw new StepError('step_code_failed', memberId, `its HTTP ${step.method} to ${url.host} failed: ${why}`);
  }
  const text = policy.redact(await readCapped(res));
  if (res.status >= 300 && res.status < 400) {
    throw new StepError('step_code_failed', memberId, `its HTTP ${step.method} to ${url.host} answered a redirect (${res.status}); redirects are not followed, call the final URL`, false);
  }
  if (res.status === 429) throw new StepError('rate_limited', memberId, `its HTTP ${step.method} to ${url.host} was rate limited (429)`);
  if (res.status < 200 || res.status >= 300) {
    throw new StepError('step_code_failed', memberId, `its HTTP ${step.method} to ${url.host} answered ${res.status}: ${text.slice(0, 200)}`, res.status >= 500);
  }
  let value: unknown = text;
  if (text !== '') {
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
  }
  return withField(payload, step.into, value);
}

async function readCapped(res: Response): Promise<string> {
  const buf = await res.arrayBuffer();
  if (buf.byteLength > MAX_HTTP_BODY) throw new Error(`the response is larger than ${MAX_HTTP_BODY} bytes`);
  return new TextDecoder().decode(buf);
}

