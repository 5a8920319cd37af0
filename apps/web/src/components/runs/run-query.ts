/**
 * The Runs tab's view as a URL query string, so reload, Back and a shared link show the same runs:
 * `?mesh=<id>&status=failed&cause=step_code_failed&severity=project&range=7d&q=invoice&sort=ended&dir=asc&page=2`
 * (`range=custom` with `from` / `to` as `YYYY-MM-DDTHH:mm` local times). Defaults are left out, and a
 * value that is not one of the allowed ones reads as the default, so an old or hand-edited link
 * still opens.
 */
import { z } from 'zod';
import { CAUSES } from '@trellis/mesh/causes';
import { RUN_STATUS_OPTIONS } from './run-status';

export const SEVERITIES = ['critical', 'project', 'capacity'] as const;
export const RANGES = { any: 'Any time', '1h': 'Last hour', today: 'Today', '7d': 'Last 7 days', custom: 'Custom' } as const;
export const RUN_SORT_KEYS = ['started', 'ended', 'duration', 'status'] as const;

export type Range = keyof typeof RANGES;
export type RunSort = (typeof RUN_SORT_KEYS)[number];

const local = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/);
const anyOf = <T extends readonly [string, ...string[]]>(values: T) => z.enum(values).or(z.literal('')).catch('');

const RunQuerySchema = z.object({
  mesh: z.string().max(64).catch(''),
  status: anyOf(RUN_STATUS_OPTIONS),
  cause: anyOf(CAUSES),
  severity: anyOf(SEVERITIES),
  range: z.enum(Object.keys(RANGES) as [Range, ...Range[]]).catch('any'),
  from: local.or(z.literal('')).catch(''),
  to: local.or(z.literal('')).catch(''),
  q: z.string().max(200).catch(''),
  sort: z.enum(RUN_SORT_KEYS).catch('started'),
  dir: z.enum(['asc', 'desc']).catch('desc'),
  page: z.coerce.number().int().min(1).catch(1),
});

/** What the Runs tab shows: filters, search text, sort and the 1-based page. */
export type RunQuery = z.output<typeof RunQuerySchema>;

/** The view with nothing chosen: every run, newest first, page 1. */
export const DEFAULT_RUN_QUERY: RunQuery = RunQuerySchema.parse({});

/** Reads the view from a query string; unknown or invalid values read as their defaults. */
export function parseRunQuery(params: URLSearchParams): RunQuery {
  const raw: Record<string, string> = {};
  for (const key of Object.keys(RunQuerySchema.shape)) {
    const v = params.get(key);
    if (v !== null) raw[key] = v;
  }
  return RunQuerySchema.parse(raw);
}

/** The query string of a view, without the values that are defaults (`''` for the default view). */
export function formatRunQuery(query: RunQuery): string {
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(query) as [keyof RunQuery, RunQuery[keyof RunQuery]][]) {
    if (value === DEFAULT_RUN_QUERY[key]) continue;
    if ((key === 'from' || key === 'to') && query.range !== 'custom') continue;
    out.set(key, String(value));
  }
  return out.toString();
}

/** Start and end of the time range, fixed at `now` for the relative ones. */
export function rangeBounds(query: Pick<RunQuery, 'range' | 'from' | 'to'>, now: Date): { from?: Date; to?: Date } {
  if (query.range === '1h') return { from: new Date(now.getTime() - 3_600_000) };
  if (query.range === 'today') {
    const start = new Date(now);
    start.setHours(0, 0, 0, 0);
    return { from: start };
  }
  if (query.range === '7d') return { from: new Date(now.getTime() - 7 * 86_400_000) };
  if (query.range === 'custom') {
    return { ...(query.from ? { from: new Date(query.from) } : {}), ...(query.to ? { to: new Date(query.to) } : {}) };
  }
  return {};
}

/** The filters of `runs.list` for a view (without sort and page). */
export function runFilters(query: RunQuery, bounds: { from?: Date; to?: Date }) {
  const search = query.q.trim();
  return {
    ...(query.status ? { status: query.status } : {}),
    ...(query.mesh ? { meshId: query.mesh } : {}),
    ...(query.cause ? { cause: query.cause } : {}),
    ...(query.severity ? { severity: query.severity } : {}),
    ...bounds,
    ...(search ? { search } : {}),
  };
}
