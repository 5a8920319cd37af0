import { describe, expect, it } from 'vitest';
import { offsetLabel, plural, rateSeries, ticks } from './timeline-scale';

describe('timeline scale', () => {
  it('puts round ticks across the span', () => {
    expect(ticks(130)).toEqual([0, 30, 60, 90, 120]);
    expect(ticks(0.4)).toEqual([0, 0.1, 0.2, 0.3, 0.4]);
    expect(ticks(0)).toEqual([0]);
  });

  it('fills empty buckets and turns counts into per-second rates', () => {
    expect(rateSeries([{ bucket: 0, done: 10, failed: 0 }, { bucket: 2, done: 4, failed: 2 }], 2, 3)).toEqual([
      { t: 0, done: 5, failed: 0 },
      { t: 2, done: 0, failed: 0 },
      { t: 4, done: 2, failed: 1 },
      { t: 6, done: 0, failed: 0 },
    ]);
    expect(rateSeries([], 0.1, 0)).toEqual([{ t: 0, done: 0, failed: 0 }]);
  });

  it('labels offsets and pluralises counts', () => {
    expect(offsetLabel(0.25)).toBe('0.3 s');
    expect(offsetLabel(45)).toBe('45 s');
    expect(offsetLabel(600)).toBe('10 min');
    expect(offsetLabel(7500)).toBe('2 h 5 min');
    expect(plural(1, 'message')).toBe('1 message');
    expect(plural(0, 'message')).toBe('0 messages');
    expect(plural(2, 'retry', 'retries')).toBe('2 retries');
    expect(plural(1200, 'message')).toBe(`${(1200).toLocaleString()} messages`);
  });
});
