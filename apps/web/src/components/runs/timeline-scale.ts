/**
 * Pure helpers for the run timeline: time-axis ticks, the throughput series with empty buckets
 * filled in, and short durations. Times are seconds from the run's creation.
 */

const TICK_STEPS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21_600, 43_200, 86_400];

/** Tick positions from 0 to `end` (inclusive of 0), at most about `count` of them, at a round step. */
export function ticks(end: number, count = 6): number[] {
  const step = TICK_STEPS.find((s) => end / s <= count) ?? Math.ceil(end / count);
  const out: number[] = [];
  for (let t = 0; t <= end + 1e-9; t += step) out.push(Math.round(t * 1000) / 1000);
  return out;
}

/** A time offset for an axis label: `0.5 s`, `12 s`, `2 min`, `1 h 5 min`. */
export function offsetLabel(seconds: number): string {
  if (seconds < 10) return `${Number(seconds.toFixed(1))} s`;
  if (seconds < 120) return `${Math.round(seconds)} s`;
  const m = Math.round(seconds / 60);
  return m < 120 ? `${m} min` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** One point of the throughput chart: the bucket's start (seconds) and messages finished per second in it. */
export interface RatePoint {
  t: number;
  done: number;
  failed: number;
}

/**
 * The throughput series: every bucket from 0 to the last one (empty buckets as 0), with counts turned
 * into per-second rates (count ÷ bucket width).
 */
export function rateSeries(cells: readonly { bucket: number; done: number; failed: number }[], bucketSeconds: number, lastBucket: number): RatePoint[] {
  const byBucket = new Map(cells.map((c) => [c.bucket, c]));
  const last = Math.max(lastBucket, ...cells.map((c) => c.bucket), 0);
  const round = (n: number) => Math.round(n * 100) / 100;
  const out: RatePoint[] = [];
  for (let b = 0; b <= last; b++) {
    const c = byBucket.get(b);
    out.push({ t: round(b * bucketSeconds), done: round((c?.done ?? 0) / bucketSeconds), failed: round((c?.failed ?? 0) / bucketSeconds) });
  }
  return out;
}

/** "1 message", "2 messages": a count with its noun in the right number (the plural adds `s` unless given). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}
