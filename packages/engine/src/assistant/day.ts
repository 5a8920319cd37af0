/**
 * The asker's day: where "today" starts in the viewer's time zone (the browser's IANA zone, sent
 * with the question), so the assistant counts the same day as the exceptions feed and the Runs tab,
 * which use the browser's local day. Without a zone the day is UTC's.
 */

/** A zone and the start of "today" in it, with the words that name it (`America/New_York, UTC−05:00`). */
export interface LocalDay {
  start: Date;
  zone: string;
}

/**
 * Checks an IANA time zone name (`Europe/Paris`, `UTC`).
 * @throws RangeError naming the field and what was expected, for an unknown zone.
 */
export function checkTimeZone(timeZone: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    throw new RangeError(`timeZone: expected an IANA time zone such as Europe/Paris, got ${JSON.stringify(timeZone.slice(0, 64))}`);
  }
}

/** True for a time zone name Intl knows (the check behind checkTimeZone, for input schemas). */
export function isTimeZone(timeZone: string): boolean {
  try {
    checkTimeZone(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** Minutes the zone is ahead of UTC at `at` (−300 for New York in winter, 540 for Tokyo). */
export function offsetMinutes(timeZone: string, at: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return Math.round((wall - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

/** `UTC`, `UTC+09:00`, `UTC−05:00` (a real minus sign). */
export function offsetLabel(minutes: number): string {
  if (minutes === 0) return 'UTC';
  const abs = Math.abs(minutes);
  return `UTC${minutes < 0 ? '−' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/**
 * The start of the day `daysBack` days before the one `now` falls on, in `timeZone` (UTC when absent),
 * as an instant, and the zone in words. Days are calendar days, so a day across a daylight-saving
 * change is 23 or 25 hours long.
 * @throws RangeError for an unknown zone (see checkTimeZone).
 */
export function startOfLocalDay(now: Date, timeZone?: string, daysBack = 0): LocalDay {
  const zone = timeZone ? checkTimeZone(timeZone) : 'UTC';
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric' }).formatToParts(now);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  // Midnight of that calendar date as if it were UTC, then moved by the zone's offset at that moment
  // (read twice: the offset at the guess can differ from the one at midnight across a change).
  const wallMidnight = Date.UTC(get('year'), get('month') - 1, get('day') - daysBack);
  let start = wallMidnight - offsetMinutes(zone, new Date(wallMidnight)) * 60_000;
  start = wallMidnight - offsetMinutes(zone, new Date(start)) * 60_000;
  const label = offsetLabel(offsetMinutes(zone, now));
  return { start: new Date(start), zone: zone === 'UTC' || zone === 'Etc/UTC' ? 'UTC' : `${zone}, ${label}` };
}
