import { describe, expect, it } from 'vitest';
import { DEFAULT_RUN_QUERY, formatRunQuery, parseRunQuery, rangeBounds, runFilters, type RunQuery } from './run-query';

const parse = (qs: string) => parseRunQuery(new URLSearchParams(qs));

describe('the Runs tab view in the URL', () => {
  it('writes nothing for the default view and reads an empty query as it', () => {
    expect(formatRunQuery(DEFAULT_RUN_QUERY)).toBe('');
    expect(parse('')).toEqual({ mesh: '', status: '', cause: '', severity: '', range: 'any', from: '', to: '', q: '', sort: 'started', dir: 'desc', page: 1 });
  });

  it('round-trips every field', () => {
    const view: RunQuery = { mesh: 'm-1', status: 'failed', cause: 'step_code_failed', severity: 'project', range: 'custom', from: '2026-01-02T03:04', to: '2026-02-03T04:05', q: 'in voice & co', sort: 'ended', dir: 'asc', page: 3 };
    const qs = formatRunQuery(view);
    expect(qs).toBe('mesh=m-1&status=failed&cause=step_code_failed&severity=project&range=custom&from=2026-01-02T03%3A04&to=2026-02-03T04%3A05&q=in+voice+%26+co&sort=ended&dir=asc&page=3');
    expect(parse(qs)).toEqual(view);
  });

  it('reads a value it does not know as the default, so a hand-edited link still opens', () => {
    expect(parse('status=exploded&cause=nope&severity=x&range=forever&sort=size&dir=up&page=-2&from=yesterday')).toEqual(DEFAULT_RUN_QUERY);
    expect(parse('page=2.5').page).toBe(1);
    expect(parse('status=stalled&page=4')).toMatchObject({ status: 'stalled', page: 4 });
  });

  it('keeps from / to only with a custom range', () => {
    expect(formatRunQuery({ ...DEFAULT_RUN_QUERY, range: '7d', from: '2026-01-02T03:04' })).toBe('range=7d');
  });

  it('turns the view into the runs.list filters with the range fixed at a time', () => {
    const now = new Date('2026-03-10T12:00:00');
    expect(rangeBounds({ range: '1h', from: '', to: '' }, now)).toEqual({ from: new Date('2026-03-10T11:00:00') });
    expect(rangeBounds({ range: 'today', from: '', to: '' }, now)).toEqual({ from: new Date('2026-03-10T00:00:00') });
    expect(rangeBounds({ range: 'custom', from: '2026-03-01T08:00', to: '' }, now)).toEqual({ from: new Date('2026-03-01T08:00') });
    expect(runFilters({ ...DEFAULT_RUN_QUERY, mesh: 'm', status: 'done', q: '  ab  ' }, {})).toEqual({ meshId: 'm', status: 'done', search: 'ab' });
    expect(runFilters(DEFAULT_RUN_QUERY, {})).toEqual({});
  });
});
