import { describe, expect, it } from 'vitest';
import { duplicateFindings } from './duplicates';

describe('duplicateFindings', () => {
  it('reports each repeated member id and channel name once, with how many share it', () => {
    expect(duplicateFindings(['a', 'b', 'a', undefined, undefined, 'c', 'a'], ['x', 'y', 'x'])).toEqual([
      { code: 'duplicate_id', severity: 'error', member: 'a', message: 'Three members share the id "a"; each member needs its own id.' },
      { code: 'duplicate_id', severity: 'error', channel: 'x', message: 'Two channels are named "x"; give each its own id.' },
    ]);
  });

  it('finds nothing when every id is used once, and skips ids that could not be read', () => {
    expect(duplicateFindings(['a', 'b', undefined, undefined], ['a', 'b', undefined, undefined])).toEqual([]);
  });

  it('counts past five in digits', () => {
    const [five] = duplicateFindings(Array<string>(5).fill('m'), []);
    const [six] = duplicateFindings(Array<string>(6).fill('m'), []);
    expect(five?.message).toMatch(/^Five members share/);
    expect(six?.message).toMatch(/^6 members share/);
  });

  it('tells a channel without ids to remove the copy or give each an id', () => {
    const asked: string[] = [];
    const findings = duplicateFindings([], ['a->b', 'a->b', 'k', 'k'], (name) => {
      asked.push(name);
      return name === 'k';
    });
    expect(findings.map((f) => f.message)).toEqual([
      'Two channels are named "a->b"; remove the copy, or give each channel its own id.',
      'Two channels are named "k"; give each its own id.',
    ]);
    expect(asked).toEqual(['a->b', 'k']);
  });
});
