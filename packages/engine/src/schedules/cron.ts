/**
 * Cron expressions through `croner` (5 fields, or 6 with seconds first; `L`, `W`, `#` and
 * nicknames such as `@hourly` as croner reads them), in an IANA time zone.
 */
import { Cron } from 'croner';
import { BadInputError } from '../kernel/errors';

/** A parsed schedule, paused: it never fires by itself, it only answers "when next". */
export function parseCron(pattern: string, timezone: string): Cron {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
  } catch {
    throw new BadInputError(`timezone: ${JSON.stringify(timezone)} is not an IANA time zone such as Europe/Paris or UTC`);
  }
  try {
    return new Cron(pattern, { timezone, paused: true });
  } catch (err) {
    throw new BadInputError(`cron: ${JSON.stringify(pattern)} is not a cron expression (${err instanceof Error ? err.message : String(err)}); e.g. "0 9 * * 1-5" for 09:00 on weekdays`);
  }
}

/** The first tick strictly after `after`, or null when the expression has no more. */
export function nextTick(cron: Cron, after: Date): Date | null {
  return cron.nextRun(after);
}

/**
 * The ticks from `first` (itself a tick) to `now` inclusive, at most `max` (the latest `max` are
 * not guaranteed when there are more: `truncated` says so).
 */
export function ticksUntil(cron: Cron, first: Date, now: Date, max = 1000): { ticks: Date[]; truncated: boolean } {
  const ticks: Date[] = [];
  for (let t: Date | null = first; t && t.getTime() <= now.getTime(); t = cron.nextRun(t)) {
    if (ticks.length === max) return { ticks, truncated: true };
    ticks.push(t);
  }
  return { ticks, truncated: false };
}
