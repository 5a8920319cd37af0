import { describe, expect, it } from 'vitest';
import { FINDING_CODES, hasErrors, isFindingCode } from './findings';

describe('finding codes', () => {
  it('knows every stable code and nothing else', () => {
    for (const code of FINDING_CODES) expect(isFindingCode(code)).toBe(true);
    for (const other of ['', 'Loop', 'loops', 'constructor', 5, null, undefined, ['loop']]) expect(isFindingCode(other)).toBe(false);
  });

  it('has errors only when some finding is an error', () => {
    expect(hasErrors([])).toBe(false);
    expect(hasErrors([{ code: 'orphan', severity: 'warning', message: 'm' }])).toBe(false);
    expect(hasErrors([{ code: 'orphan', severity: 'warning', message: 'm' }, { code: 'loop', severity: 'error', message: 'm' }])).toBe(true);
  });
});
