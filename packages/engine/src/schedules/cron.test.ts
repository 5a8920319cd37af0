import { describe, expect, it } from 'vitest';
import { nextTick, parseCron, ticksUntil } from './cron';

describe('cron expressions in a time zone', () => {
  it.each([
    ['0 9 * * *', 'Europe/Paris', '2026-01-15T00:00:00Z', '2026-01-15T08:00:00.000Z'],
    ['0 9 * * *', 'Europe/Paris', '2026-07-15T00:00:00Z', '2026-07-15T07:00:00.000Z'],
    ['0 9 * * *', 'America/New_York', '2026-01-15T00:00:00Z', '2026-01-15T14:00:00.000Z'],
    ['0 9 * * 1-5', 'UTC', '2026-01-17T10:00:00Z', '2026-01-19T09:00:00.000Z'],
    ['*/15 * * * * *', 'UTC', '2026-01-15T00:00:01Z', '2026-01-15T00:00:15.000Z'],
  ])('%s in %s after %s is %s', (pattern, tz, after, next) => {
    expect(nextTick(parseCron(pattern, tz), new Date(after))?.toISOString()).toBe(next);
  });

  it('lists the ticks up to now, inclusive', () => {
    const cron = parseCron('* * * * *', 'UTC');
    const { ticks } = ticksUntil(cron, new Date('2026-01-01T10:00:00Z'), new Date('2026-01-01T10:03:00Z'));
    expect(ticks.map((t) => t.toISOString().slice(11, 16))).toEqual(['10:00', '10:01', '10:02', '10:03']);
    expect(ticksUntil(cron, new Date('2026-01-01T10:00:00Z'), new Date('2026-01-01T12:00:00Z'), 5)).toMatchObject({ truncated: true });
  });

  it('refuses a bad expression or time zone, naming the field', () => {
    expect(() => parseCron('61 * * * *', 'UTC')).toThrow(/^cron: "61 \* \* \* \*" is not a cron expression/);
    expect(() => parseCron('0 9 * * *', 'Mars/Olympus')).toThrow('timezone: "Mars/Olympus" is not an IANA time zone such as Europe/Paris or UTC');
  });
});
