import { describe, expect, it } from 'vitest';
import { admissionLine, duration } from './admission-verdict';

describe('duration', () => {
  it('says a sub-second wait is less than a second, not 1 s', () => {
    expect(duration(0)).toBe('less than a second');
    expect(duration(0.05)).toBe('less than a second');
    expect(duration(0.999)).toBe('less than a second');
  });

  it('rounds seconds, then minutes, then hours', () => {
    expect(duration(1)).toBe('1 s');
    expect(duration(45.4)).toBe('45 s');
    expect(duration(180)).toBe('3 min');
    expect(duration(7200)).toBe('2 h');
  });

  it('words a 50 ms wait for a worker on the run page', () => {
    const line = admissionLine({
      verdict: 'wait',
      resource: 'worker',
      pool: 'default',
      behind: 0,
      workers: 0,
      slots: 0,
      estimateSeconds: null,
      waitLimitSeconds: 600,
      sentence: 'Waits for a worker on pool default: none is running; 0 messages ahead.',
      at: '2026-01-01T00:00:00.000Z',
      startedAt: '2026-01-01T00:00:00.050Z',
    });
    expect(line).toBe('Waited less than a second for a worker on pool default, then started.');
  });
});
