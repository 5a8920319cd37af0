import { describe, expect, it } from 'vitest';
import { causeSentence } from './causes';

describe('causeSentence with the step it happened in', () => {
  it.each([
    [{ cause: 'step_code_failed', member: 's', step: 'sql', detail: 'its SQL query failed: boom' }, 'The run failed in the sql step at s: its SQL query failed: boom.'],
    [{ cause: 'step_code_failed', member: 'Fetch', step: 'http' }, 'The run failed in the http step at Fetch.'],
    [{ cause: 'timed_out', member: 'Ask', step: 'agent', detail: 'took longer than 60 s' }, 'The run ran out of time in the agent step at Ask: took longer than 60 s.'],
    [{ cause: 'step_code_failed', member: 's', detail: 'x' }, 'The run failed in step code at s: x.'],
  ] as const)('%j reads %j', (input, sentence) => {
    expect(causeSentence(input)).toBe(sentence);
  });
});
