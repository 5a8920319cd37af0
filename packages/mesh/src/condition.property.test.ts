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

// An independent reference for the language's meaning, sharing no code with the parser or the
// evaluator: an expression is a flat list of atoms (a comparison or a parenthesized expression)
// joined by words, as a person writes it; `and` binds tighter than `or`, so the list is cut at each
// `or` into runs of `and`s. Inverting the precedence, or grouping left to right, disagrees with it.
type RefAtom =
  | {
      kind: 'cmp';
      field: 'a' | 'b' | 'c';
      op: (typeof COMPARISON_OPERATORS)[number];
      value: number | string | boolean | null;
    }
  | { kind: 'group'; expr: RefExpr };
interface RefExpr {
  first: RefAtom;
  rest: { word: 'and' | 'or'; atom: RefAtom }[];
}

const refLiteral = fc.oneof(
  fc.integer({ min: -2, max: 2 }),
  fc.constantFrom('a', 'b'),
  fc.boolean(),
  fc.constant(null),
);
const refCmp = fc.record({
  kind: fc.constant('cmp' as const),
  field: fc.constantFrom('a' as const, 'b' as const, 'c' as const),
  op: fc.constantFrom(...COMPARISON_OPERATORS),
  value: refLiteral,
});
const { refExpr } = fc.letrec<{ refExpr: RefExpr; refAtom: RefAtom }>((tie) => ({
  refAtom: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    refCmp,
    fc.record({ kind: fc.constant('group' as const), expr: tie('refExpr') }),
  ),
  refExpr: fc.record({
    first: tie('refAtom'),
    rest: fc.array(
      fc.record({ word: fc.constantFrom('and' as const, 'or' as const), atom: tie('refAtom') }),
      { maxLength: 4 },
    ),
  }),
}));
const refPayload = fc.record(
  {
    a: fc.oneof(
      fc.integer({ min: -2, max: 2 }),
      fc.constantFrom('a', 'b'),
      fc.boolean(),
      fc.constant(null),
    ),
    b: fc.oneof(fc.integer({ min: -2, max: 2 }), fc.constantFrom('a', 'b'), fc.boolean()),
    c: fc.integer({ min: -2, max: 2 }),
  },
  { requiredKeys: [] },
);

function refSource(e: RefExpr): string {
  const atom = (a: RefAtom): string => {
    if (a.kind === 'group') return `(${refSource(a.expr)})`;
    const v = typeof a.value === 'string' ? `'${a.value}'` : String(a.value);
    return `${a.field} ${a.op} ${v}`;
  };
  return [atom(e.first), ...e.rest.map((r) => `${r.word} ${atom(r.atom)}`)].join(' ');
}

function refCompare(actual: unknown, op: string, literal: unknown): boolean {
  if (op === '==') return actual === literal;
  if (op === '!=') return actual !== literal;
  const bothNumbers = typeof actual === 'number' && typeof literal === 'number';
  const bothStrings = typeof actual === 'string' && typeof literal === 'string';
  if (!bothNumbers && !bothStrings) return false;
  const [x, y] = [actual, literal];
  return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
}

function refEvaluate(e: RefExpr, data: Record<string, unknown>): boolean {
  const atom = (a: RefAtom): boolean =>
    a.kind === 'group'
      ? refEvaluate(a.expr, data)
      : refCompare(a.field in data ? data[a.field] : null, a.op, a.value);
  // Runs of `and`, cut at each `or`; the expression holds when any run holds entirely.
  const runs: boolean[][] = [[atom(e.first)]];
  for (const { word, atom: next } of e.rest) {
    if (word === 'or') runs.push([]);
    runs[runs.length - 1]?.push(atom(next));
  }
  return runs.some((run) => run.every(Boolean));
}

describe('condition language meaning, against an independent reference', () => {
  it('evaluates random and/or expressions as the reference does (and binds tighter than or)', () => {
    fc.assert(
      fc.property(refExpr, refPayload, (expr, data) => {
        const source = refSource(expr);
        expect(evaluateCondition(parseCondition(source), data), source).toBe(
          refEvaluate(expr, data),
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('tells the precedence apart on the plainest case', () => {
    // false and false or true: (false and false) or true = true; inverted, false and (false or true) = false.
    expect(evaluateCondition(parseCondition('c == 9 and c == 9 or c == 0'), { c: 0 })).toBe(true);
    // true or true and false: true or (true and false) = true; left to right, (true or true) and false = false.
    expect(evaluateCondition(parseCondition('c == 0 or c == 0 and c == 9'), { c: 0 })).toBe(true);
  });
});
