/**
 * Reading how long a provider asks us to wait before retrying, and waiting that long without
 * outliving the caller's AbortSignal.
 */

/**
 * Milliseconds the provider asked us to wait, from its response headers, or undefined when it
 * did not say (or said something unreadable).
 *
 * Sources, in this order:
 * - `retry-after-ms`: a non-standard header some OpenAI-compatible providers send; the official
 *   `openai` SDK reads it first too (its `retryRequest`).
 * - `retry-after`: RFC 9110 §10.2.3, either delay-seconds (`"20"`) or an HTTP-date
 *   (`"Wed, 21 Oct 2015 07:28:00 GMT"`); OpenAI's rate-limit guide asks clients to honour it.
 * A date in the past, or a negative delay, means "now" (0 ms).
 * @param now current time in milliseconds since the epoch (a parameter so tests can pin it).
 */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.max(0, Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.max(0, Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Exponential backoff for a retry the provider gave no delay for: 500 ms, 1 s, 2 s, … capped.
 * @param attempt 0 for the first retry.
 * @param capMs the longest wait, in milliseconds.
 */
export function backoffMs(attempt: number, capMs: number): number {
  return Math.min(capMs, 500 * 2 ** attempt);
}

/**
 * Resolves after `ms` milliseconds, or rejects with the signal's reason as soon as it aborts,
 * so a step deadline is never overslept.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
