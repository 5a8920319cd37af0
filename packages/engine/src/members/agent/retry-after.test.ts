import { describe, expect, it } from 'vitest';
import { backoffMs, retryAfterMs, sleep } from './retry-after';

const now = Date.parse('2025-01-01T00:00:00Z');
const h = (init: Record<string, string>) => new Headers(init);

describe('retryAfterMs', () => {
  it.each([
    ['delay-seconds', { 'retry-after': '20' }, 20_000],
    ['fractional seconds', { 'retry-after': '1.5' }, 1500],
    ['an HTTP-date', { 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }, 30_000],
    ['a date in the past', { 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }, 0],
    ['retry-after-ms first', { 'retry-after-ms': '250', 'retry-after': '20' }, 250],
    ['garbage', { 'retry-after': 'soon' }, undefined],
    ['nothing', {}, undefined],
  ])('%s', (_name, headers, expected) => {
    expect(retryAfterMs(h(headers), now)).toBe(expected);
  });
});

describe('backoff and sleep', () => {
  it('doubles from 500 ms up to the cap', () => {
    expect([0, 1, 2, 3, 10].map((a) => backoffMs(a, 3000))).toEqual([500, 1000, 2000, 3000, 3000]);
  });

  it('stops sleeping when the signal aborts', async () => {
    const started = Date.now();
    await expect(sleep(10_000, AbortSignal.timeout(50))).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
