import { describe, expect, it } from 'vitest';
import { compileMeshPattern, firstMatch } from './mesh-pattern';
import { parseMeshFile } from './parse';

describe('firstMatch', () => {
  it.each([
    ['CLM-\\d+', 'Claim CLM-4411 photos', 'CLM-4411'],
    ['claim (CLM-\\d+)', 'Re: claim CLM-7 attached', 'CLM-7'],
    ['(?i)claim ([a-z]+-\\d+)', 'CLAIM AB-12', 'AB-12'],
    ['(x)?CLM-\\d', 'CLM-1', 'CLM-1'],
    ['\\p{L}+-\\d+', 'Schadenmeldung Ü-42', 'Ü-42'],
    ['nothing', 'Claim CLM-4411', undefined],
  ])('/%s/ on %j is %j, as RegExp has it', (pattern, text, expected) => {
    expect(firstMatch(pattern, text)).toBe(expected);
  });

  it('takes a pattern that backtracks exponentially in RegExp in linear time', () => {
    // With RegExp this takes minutes: 2^34 ways to split the a's before failing on the "!".
    const subject = `${'a'.repeat(5_000)}!`;
    expect(firstMatch('^(a|a)+$', subject)).toBeUndefined();
    expect(firstMatch('^(a|aa)+$', 'a'.repeat(5_000))).toBe('a');
  });
});

describe('compileMeshPattern', () => {
  it('refuses what RE2 has not: backreferences and lookaround', () => {
    for (const p of ['(a)\\1', 'a(?=b)', '(?<!x)y']) {
      const re = compileMeshPattern(p);
      expect('error' in re && re.error).toMatch(/^expected a regular expression RE2 accepts/);
    }
  });

  it('is what the email step schema checks', () => {
    const mesh = (pattern: string) => ({ format: 'trellis.mesh/v1', name: 'm', members: [{ id: 'f', kind: 'workflow', head: true, steps: [{ type: 'email', id: { pattern } }] }], channels: [] });
    expect(parseMeshFile(mesh('^(a|a)+$')).ok).toBe(true);
    const refused = parseMeshFile(mesh('(a)\\1'));
    expect(refused.ok).toBe(false);
    expect(JSON.stringify(refused)).toContain('pattern');
    expect(JSON.stringify(refused)).toContain('RE2 accepts');
  });
});
