import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COMPARISON_OPERATORS,
  ConditionError,
  evaluateCondition,
  formatCondition,
  parseCondition,
  type ConditionLiteral,
  type ConditionNode,
} from './condition';

const KEYWORDS = ['and', 'or', 'true', 'false', 'null'];

const segment = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,5}$/);
const fieldPath = fc
  .array(segment, { minLength: 1, maxLength: 3 })
  .map((segments) => segments.join('.'))
  .filter((path) => !KEYWORDS.includes(path));

// Any UTF-16 code unit, so quotes, backslashes, control characters and lone surrogates all appear.
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
const tricky = fc.constantFrom("'", '"', '\\', '\n', '\t', '\0', '\u2028', '😀', 'a', ' ');
const text = fc.string({ unit: fc.oneof(anyUnit, tricky), maxLength: 12 });

const literal: fc.Arbitrary<ConditionLiteral> = fc.oneof(
  text,
  fc.integer({ min: -1e6, max: 1e6 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);

const comparison = fc.record({
  type: fc.constant('compare' as const),
  field: fieldPath,
  op: fc.constantFrom(...COMPARISON_OPERATORS),
  value: literal,
});

const { node } = fc.letrec<{ node: ConditionNode; logical: ConditionNode }>((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, comparison, tie('logical')),
  logical: fc.record({
    type: fc.constantFrom('and' as const, 'or' as const),
    operands: fc.array(tie('node'), { minLength: 2, maxLength: 3 }),
  }),
}));

const payload = fc.dictionary(
  fc.constantFrom('a', 'b', 'c', '_x'),
  fc.oneof(
    fc.integer({ min: -3, max: 3 }),
    fc.constantFrom('a', 'b', '3', 'null'),
    fc.boolean(),
    fc.constant(null),
  ),
);

// Pieces of the language, so random strings are often nearly valid and reach deep into the parser.
const conditionish = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'a',
        'b.c',
        '==',
        '!=',
        '<',
        '<=',
        '>',
        '>=',
        '=',
        'and',
        'or',
        'AND',
        '(',
        ')',
        ' ',
        "'",
        '"',
      ),
      fc.constantFrom(
        '\\',
        '\\u',
        '\\u{',
        '1',
        '-',
        '1e',
        '.',
        'null',
        'true',
        '&&',
        '!',
        '😀',
        '\ud800',
        '\t',
      ),
    ),
    { maxLength: 20 },
  )
  .map((pieces) => pieces.join(''));

function parsesOrConditionError(source: string): void {
  try {
    parseCondition(source);
  } catch (error) {
    if (!(error instanceof ConditionError)) throw error;
    expect(error.position).toBeGreaterThanOrEqual(0);
    expect(error.position).toBeLessThanOrEqual(source.length);
    expect(error.message).toMatch(/^expected [\s\S]* at character [1-9]\d*/);
    expect(error.message).toContain(` at character ${error.position + 1}`);
    expect(error.message.startsWith(error.detail.split(' (')[0] ?? '')).toBe(true);
  }
}

describe('condition language properties', () => {
  it('formatCondition then parseCondition gives the same AST back', () => {
    fc.assert(
      fc.property(node, (ast) => {
        expect(parseCondition(formatCondition(ast))).toEqual(ast);
      }),
      { numRuns: 500 },
    );
  });

  it('formatting is stable: printing a parsed print changes nothing', () => {
    fc.assert(
      fc.property(node, (ast) => {
        const printed = formatCondition(ast);
        expect(formatCondition(parseCondition(printed))).toBe(printed);
      }),
    );
  });

  it('a reparsed condition evaluates the same on any payload', () => {
    fc.assert(
      fc.property(node, payload, (ast, value) => {
        expect(evaluateCondition(parseCondition(formatCondition(ast)), value)).toBe(
          evaluateCondition(ast, value),
        );
      }),
    );
  });

  it('never throws anything but a ConditionError on arbitrary strings', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.oneof(anyUnit, tricky), maxLength: 40 }),
        parsesOrConditionError,
      ),
      {
        numRuns: 1000,
      },
    );
  });

  it('never throws anything but a ConditionError on strings made of the language pieces', () => {
    fc.assert(fc.property(conditionish, parsesOrConditionError), { numRuns: 2000 });
  });

  it('!= is always the negation of ==, and only two numbers or two strings are ordered', () => {
    fc.assert(
      fc.property(fc.constantFrom('a', 'b', 'c', '_x'), literal, payload, (field, value, data) => {
        const eq = evaluateCondition({ type: 'compare', field, op: '==', value }, data);
        const ne = evaluateCondition({ type: 'compare', field, op: '!=', value }, data);
        expect(ne).toBe(!eq);
        const actual = data[field] ?? null;
        const ordered =
          typeof actual === typeof value &&
          (typeof value === 'number' || typeof value === 'string');
        if (!ordered) {
          for (const op of ['<', '<=', '>', '>='] as const) {
            expect(evaluateCondition({ type: 'compare', field, op, value }, data)).toBe(false);
          }
        }
      }),
    );
  });
});
