import { describe, expect, it } from 'vitest';
import {
  CAUSES,
  causeInfo,
  causeSentence,
  isCause,
  type Cause,
  type CauseSeverity,
} from './causes';

describe('causes', () => {
  it.each<[Cause, CauseSeverity, string]>([
    ['message_lost', 'critical', 'someone must look now'],
    ['outcome_unreadable', 'critical', 'someone must look now (never counted a success)'],
    ['step_code_failed', 'project', 'an operator or admin, with a designer when the mesh needs a fix'],
    ['input_rejected', 'project', 'an operator or admin, with a designer when the mesh needs a fix'],
    ['content_refused', 'project', 'an operator or admin, with a designer when the mesh needs a fix'],
    ['budget_spent', 'project', 'an operator or admin, with a designer when the mesh needs a fix'],
    ['agent_or_model_missing', 'project', 'an operator or admin, with a designer when the mesh needs a fix'],
    ['timed_out', 'capacity', 'platform or provider'],
    ['rate_limited', 'capacity', 'platform or provider'],
    ['capacity_wait_exceeded', 'capacity', 'platform or provider'],
    ['no_worker', 'capacity', 'platform or provider'],
    ['stalled', 'capacity', 'platform or provider'],
  ])('%s is %s, acted on by %s', (cause, severity, whoActs) => {
    expect(causeInfo(cause)).toMatchObject({ cause, severity, whoActs });
    expect(isCause(cause)).toBe(true);
  });

  it('lists exactly the twelve causes of the design, once each', () => {
    expect(CAUSES).toHaveLength(12);
    expect(new Set(CAUSES).size).toBe(12);
  });

  it.each([undefined, null, 3, '', 'TIMED_OUT', 'timeout', 'toString', '__proto__'])(
    '%j is not a cause',
    (x) => {
      expect(isCause(x)).toBe(false);
    },
  );

  it.each([
    [
      {
        cause: 'timed_out',
        member: 'Records check',
        detail: 'the outside service had no worker after 18:00',
        runs: 14,
      },
      '14 runs ran out of time at Records check: the outside service had no worker after 18:00.',
    ],
    [
      { cause: 'timed_out', member: 'Records check', runs: 1 },
      '1 run ran out of time at Records check.',
    ],
    [
      { cause: 'message_lost', member: 'split-words', detail: 'part 3 of 9 never arrived.' },
      'The run lost a message at split-words: part 3 of 9 never arrived.',
    ],
    [
      { cause: 'stalled', detail: '  nothing moved for 10 minutes  ' },
      'The run stalled: nothing moved for 10 minutes.',
    ],
    [
      { cause: 'rate_limited', member: 'classify', runs: 0 },
      '0 runs hit a rate limit at classify.',
    ],
    [
      { cause: 'outcome_unreadable', member: ' ' },
      'The run ended with an outcome that could not be read.',
    ],
    [
      { cause: 'content_refused', member: 'Summarise', runs: 3, detail: 'Why?' },
      '3 runs had content refused by the model at Summarise: Why?',
    ],
  ] as const)('%j', (input, sentence) => {
    expect(causeSentence(input)).toBe(sentence);
  });

  it('gives every cause a title and a sentence', () => {
    for (const cause of CAUSES) {
      expect(causeInfo(cause).title.length).toBeGreaterThan(0);
      expect(causeSentence({ cause, member: 'M', detail: 'd', runs: 2 })).toMatch(
        /^2 runs .+ at M: d\.$/,
      );
    }
  });
});
