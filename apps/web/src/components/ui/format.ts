/** Formatting for people: dates, durations and counts. */

export function formatDateTime(d: Date | null | undefined): string {
  if (!d) return '—';
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** A date in few characters for tables: `Dec 2, 04:22:25`, with the year only when it is not this year's. */
export function formatShortDateTime(d: Date | null | undefined): string {
  if (!d) return '—';
  const year = d.getFullYear() === new Date().getFullYear() ? undefined : 'numeric';
  return d.toLocaleString(undefined, { ...(year ? { year } : {}), month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function formatDuration(seconds: number): string {
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  if (m < 60) return `${m} min ${s} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function formatCount(n: number): string {
  return n.toLocaleString();
}
