import { describe, expect, it } from 'vitest';
import { plainSentence } from './plain-text';

describe('plainSentence', () => {
  it('keeps a plain sentence as it is', () => {
    expect(plainSentence('Member cut failed: the field missing is not in the payload (after 1 attempt).')).toEqual({
      sentence: 'Member cut failed: the field missing is not in the payload (after 1 attempt).',
      more: false,
    });
  });

  it('cuts a stack trace off, on later lines or on the same line', () => {
    const multi = 'Member code failed: boom\n    at run (<isolated-vm>:3:9)\n    at <isolated-vm>:5:1';
    expect(plainSentence(multi)).toEqual({ sentence: 'Member code failed: boom', more: true });
    expect(plainSentence('Member code failed: TypeError: x is undefined at main (/srv/step.js:12:7) at next (node:internal/x:1:2)')).toEqual({
      sentence: 'Member code failed: TypeError: x is undefined',
      more: true,
    });
    expect(plainSentence('at foo (a.js:1:1)').sentence).toBe('The step failed (see the details).');
  });

  it('does not mistake the word "at" in a sentence for a frame', () => {
    expect(plainSentence('Failed at member words after 3 attempts.').sentence).toBe('Failed at member words after 3 attempts.');
  });
});
