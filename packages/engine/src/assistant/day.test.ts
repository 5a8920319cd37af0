import { describe, expect, it } from 'vitest';
import { checkTimeZone, offsetLabel, offsetMinutes, startOfLocalDay } from './day';

describe("the asker's day", () => {
  // 03:30 UTC on 10 January 2026: still 9 January in New York (UTC−5), already 10 January in Tokyo (UTC+9).
  const winter = new Date('2026-01-10T03:30:00Z');
  // 03:30 UTC on 10 March 2026, two days after New York moved to UTC−4.
  const now = new Date('2026-03-10T03:30:00Z');

  it('starts at local midnight in the asker’s zone, which can be another UTC date', () => {
    expect(startOfLocalDay(winter, 'America/New_York')).toEqual({ start: new Date('2026-01-09T05:00:00Z'), zone: 'America/New_York, UTC−05:00' });
    expect(startOfLocalDay(winter, 'Asia/Tokyo')).toEqual({ start: new Date('2026-01-09T15:00:00Z'), zone: 'Asia/Tokyo, UTC+09:00' });
    expect(startOfLocalDay(winter)).toEqual({ start: new Date('2026-01-10T00:00:00Z'), zone: 'UTC' });
    expect(startOfLocalDay(winter, 'UTC').zone).toBe('UTC');
    expect(startOfLocalDay(now, 'America/New_York')).toEqual({ start: new Date('2026-03-09T04:00:00Z'), zone: 'America/New_York, UTC−04:00' });
  });

  it('counts calendar days back, across a daylight-saving change', () => {
    // New York moved to UTC−4 at 02:00 on 8 March 2026: that day's midnight was still UTC−5.
    expect(startOfLocalDay(now, 'America/New_York', 1).start).toEqual(new Date('2026-03-08T05:00:00Z'));
    const afterChange = new Date('2026-03-10T12:00:00Z');
    expect(startOfLocalDay(afterChange, 'America/New_York').start).toEqual(new Date('2026-03-10T04:00:00Z'));
    expect(startOfLocalDay(afterChange, 'America/New_York', 6).start).toEqual(new Date('2026-03-04T05:00:00Z'));
    expect(startOfLocalDay(new Date('2026-03-10T20:00:00Z'), 'Asia/Kolkata').start).toEqual(new Date('2026-03-10T18:30:00Z'));
  });

  it('names offsets and refuses unknown zones with the field name', () => {
    expect(offsetMinutes('Asia/Tokyo', now)).toBe(540);
    expect(offsetMinutes('America/New_York', now)).toBe(-240);
    expect(offsetLabel(-300)).toBe('UTC−05:00');
    expect(offsetLabel(330)).toBe('UTC+05:30');
    expect(() => checkTimeZone('Mars/Olympus')).toThrow(/^timeZone: expected an IANA time zone/);
  });
});

describe('windowStart', () => {
  const winter = new Date('2026-01-10T03:30:00Z');

  it('says which zone its day is in', async () => {
    const { windowStart } = await import('./ask');
    expect(windowStart('today', winter, 'America/New_York')).toEqual({ since: new Date('2026-01-09T05:00:00Z'), words: 'today (America/New_York, UTC−05:00)' });
    expect(windowStart('today', winter, 'Asia/Tokyo')).toEqual({ since: new Date('2026-01-09T15:00:00Z'), words: 'today (Asia/Tokyo, UTC+09:00)' });
    expect(windowStart('yesterday', winter, 'Asia/Tokyo')).toEqual({ since: new Date('2026-01-08T15:00:00Z'), words: 'since yesterday (Asia/Tokyo, UTC+09:00)' });
    expect(windowStart('week', winter).words).toBe('in the last 7 days (UTC)');
    expect(windowStart('today', winter)).toEqual({ since: new Date('2026-01-10T00:00:00Z'), words: 'today (UTC)' });
  });
});
