import { describe, expect, it } from 'vitest';
import {
  ConditionError,
  compileCondition,
  evaluateCondition,
  formatCondition,
  formatLiteral,
  literalTypeWarnings,
  parseCondition,
  readField,
} from './condition';

describe('parseCondition and formatCondition', () => {
  it.each([
    ["kind == 'medical bill'", "kind == 'medical bill'"],
    ['kind=="medical bill"', "kind == 'medical bill'"],
    ['a == 1 or b == 2 and c == 3', 'a == 1 or (b == 2 and c == 3)'],
    ['a == 1 and b == 2 or c == 3', '(a == 1 and b == 2) or c == 3'],
    ['(a == 1 or b == 2) and c == 3', '(a == 1 or b == 2) and c == 3'],
    ['a == 1 and b == 2 and c == 3', 'a == 1 and b == 2 and c == 3'],
    ['a == 1 or b == 2 or c == 3', 'a == 1 or b == 2 or c == 3'],
    ['((a == 1))', 'a == 1'],
    ['(a == 1 and b == 2) and c == 3', '(a == 1 and b == 2) and c == 3'],
    ['claim.amount >= 100.5', 'claim.amount >= 100.5'],
    ['x != -3', 'x != -3'],
    ['x < 1e3', 'x < 1000'],
    ['x <= 2.5E-3', 'x <= 0.0025'],
    ['x > true and y == false', 'x > true and y == false'],
    ['x == null', 'x == null'],
    ["x == 'it\\'s'", "x == 'it\\'s'"],
    ['x == "say \\"hi\\""', `x == 'say "hi"'`],
    ["x == 'a\\nb\\tc\\\\'", "x == 'a\\nb\\tc\\\\'"],
    ["x == '\\u00e9\\u{1F600}'", "x == 'é😀'"],
    ['_private.field_2 == 0', '_private.field_2 == 0'],
    ['  \t a == 1 \n ', 'a == 1'],
    ['null_count == 0', 'null_count == 0'],
    ['order.and == 1', 'order.and == 1'],
  ])('%s prints as %s', (source, printed) => {
    expect(formatCondition(parseCondition(source))).toBe(printed);
  });

  it('builds the AST with and binding tighter than or', () => {
    expect(parseCondition("a == 1 or b == 'x' and c != null")).toEqual({
      type: 'or',
      operands: [
        { type: 'compare', field: 'a', op: '==', value: 1 },
        {
          type: 'and',
          operands: [
            { type: 'compare', field: 'b', op: '==', value: 'x' },
            { type: 'compare', field: 'c', op: '!=', value: null },
          ],
        },
      ],
    });
  });

  it('keeps a string "null" apart from null', () => {
    expect(parseCondition("x == 'null'")).toEqual({
      type: 'compare',
      field: 'x',
      op: '==',
      value: 'null',
    });
    expect(parseCondition('x == null')).toEqual({
      type: 'compare',
      field: 'x',
      op: '==',
      value: null,
    });
  });
});

describe('parse errors', () => {
  it.each([
    ['status ==', 9, "expected a value after '==' at character 10"],
    ['amount >= ', 10, "expected a value after '>=' at character 11"],
    ['', 0, "expected a field name or '(' at character 1"],
    ['   ', 3, "expected a field name or '(' at character 4"],
    ['a == 1 and', 10, "expected a field name or '(' after 'and' at character 11"],
    ['a == 1 or )', 10, "expected a field name or '(' after 'or', found ')' at character 11"],
    [
      'a = 1',
      2,
      "expected a comparison operator (== != < <= > >=) after 'a', found '=' at character 3 (use '==' to compare)",
    ],
    ['a', 1, "expected a comparison operator (== != < <= > >=) after 'a' at character 2"],
    [
      'a == open',
      5,
      "expected a value after '==', found 'open' at character 6 (text needs quotes, like 'open')",
    ],
    ['a == 1 b == 2', 7, "expected 'and', 'or' or the end of the condition, found 'b' at character 8"],
    [
      'a == 1 AND b == 2',
      7,
      "expected 'and', 'or' or the end of the condition, found 'AND' at character 8 (write 'and' in lower case)",
    ],
    [
      'a == 1 && b == 2',
      7,
      "expected 'and', 'or' or the end of the condition, found '&&' at character 8 (use 'and')",
    ],
    ['(a == 1', 7, "expected 'and', 'or' or ')' at character 8 (the '(' at character 1 is not closed)"],
    ['a == 1)', 6, "expected 'and', 'or' or the end of the condition, found ')' at character 7"],
    ["a == 'open", 5, "expected a closing ' for the string at character 6"],
    [
      "a == 'x\\q'",
      7,
      "expected an escape (\\\\, \\', \\\", \\n, \\r, \\t, \\b, \\f, \\v, \\0, \\uXXXX or \\u{X}) after '\\', found '\\q' at character 8",
    ],
    ["a == '\\u12'", 6, undefined],
    ['a. == 1', 2, "expected a field name after '.', found ' ' at character 3"],
    ['true == 1', 0, "expected a field name or '(', found 'true' at character 1"],
    ["'x' == a", 0, "expected a field name or '(', found the string 'x' at character 1"],
    ['1 == a', 0, "expected a field name or '(', found the number 1 at character 1"],
    ['a == b.c', 5, undefined],
    ['a == 1e999', 5, undefined],
    ['a == -', 5, "expected a value after '==', found '-' at character 6"],
    ['a == 1 # note', 7, "expected 'and', 'or' or the end of the condition, found '#' at character 8"],
    [
      'a ! 1',
      2,
      "expected a comparison operator (== != < <= > >=) after 'a', found '!' at character 3 (use '!=' to compare)",
    ],
    ['a == 😀', 5, "expected a value after '==', found '😀' at character 6"],
  ])('%j fails at %i', (source, position, message) => {
    let caught: unknown;
    try {
      parseCondition(source);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConditionError);
    const error = caught as ConditionError;
    expect(error.position).toBe(position);
    expect(error.message).toContain(`at character ${position + 1}`);
    if (message !== undefined) expect(error.message).toBe(message);
  });

  it('refuses nesting deeper than 64 parentheses but accepts 64', () => {
    expect(() => parseCondition(`${'('.repeat(64)}a == 1${')'.repeat(64)}`)).not.toThrow();
    expect(() => parseCondition(`${'('.repeat(65)}a == 1${')'.repeat(65)}`)).toThrow(
      /at most 64 nested/,
    );
  });

  it('compileCondition throws the same ConditionError', () => {
    expect(() => compileCondition('x >')).toThrow(ConditionError);
  });
});

describe('evaluateCondition', () => {
  const payload = {
    amount: 20,
    kind: 'medical bill',
    label: 'null',
    empty: null,
    flag: true,
    claim: { id: 'C-1', total: 150.5, owner: { name: 'Ann' } },
    items: [1, 2],
    nothing: undefined,
  };
  it.each([
    ['amount == 20', true],
    ['amount == "20"', false],
    ['amount != "20"', true],
    ["kind == 'medical bill'", true],
    ["kind == 'Medical bill'", false],
    ['missing == null', true],
    ['missing != null', false],
    ['empty == null', true],
    ['nothing == null', true],
    ['label == null', false],
    ["label == 'null'", true],
    ['missing.deep.path == null', true],
    ['missing > 1', false],
    ['missing < 1', false],
    ['empty >= null', false],
    ['amount > null', false],
    ['amount < "30"', false],
    ['amount >= 20', true],
    ['amount > 20', false],
    ['amount <= 20.0', true],
    ['amount < 21', true],
    ["kind > 'a'", true],
    ["kind < 'n'", true],
    ["kind >= 'medical bill'", true],
    ["'Z' < 'a' or kind < 'medical billz'", undefined],
    ['flag == true', true],
    ['flag != false', true],
    ['flag > false', false],
    ['flag == 1', false],
    ['claim.total > 150', true],
    ["claim.owner.name == 'Ann'", true],
    ['claim.owner == null', false],
    ["claim == 'C-1'", false],
    ['items == null', false],
    ['items.length == 2', false],
    ['items.length == null', true],
    ['kind.length == null', true],
    ['claim.toString == null', true],
    ['amount == 1 or amount == 20', true],
    ['amount == 1 and amount == 20', false],
    ["(amount == 1 or amount == 20) and kind == 'medical bill'", true],
    ['amount == 1 or amount == 2 and kind == null', false],
    ['amount == 20 or amount == 2 and kind == null', true],
  ])('%s is %s', (source, expected) => {
    if (expected === undefined) {
      expect(() => parseCondition(source)).toThrow(ConditionError);
      return;
    }
    expect(evaluateCondition(parseCondition(source), payload)).toBe(expected);
    expect(compileCondition(source)(payload)).toBe(expected);
  });

  it('orders strings by UTF-16 code unit, not by locale', () => {
    expect(compileCondition("s < 'a'")({ s: 'Z' })).toBe(true);
    expect(compileCondition("s > 'z'")({ s: 'é' })).toBe(true);
    // U+FF21 is one code unit; U+1F600 starts with the surrogate 0xD83D, which is smaller.
    expect(compileCondition("s < '\\uFF21'")({ s: '😀' })).toBe(true);
  });

  it('reads non-object payloads as having no fields', () => {
    for (const payload of [null, undefined, 5, 'text', [1]]) {
      expect(compileCondition('x == null')(payload)).toBe(true);
      expect(compileCondition('x != null')(payload)).toBe(false);
    }
  });
});

describe('readField', () => {
  it.each([
    [{ a: { b: 1 } }, 'a.b', 1],
    [{ a: { b: 1 } }, 'a', { b: 1 }],
    [{ a: { b: 1 } }, 'a.c', null],
    [{ a: [{ b: 1 }] }, 'a.b', null],
    [{ a: undefined }, 'a', null],
    [Object.create({ inherited: 1 }) as object, 'inherited', null],
    [{}, 'constructor', null],
  ])('%j at %s reads %j', (payload, path, value) => {
    expect(readField(payload, path)).toEqual(value);
  });
});

describe('formatLiteral', () => {
  it.each([
    ['plain', "'plain'"],
    ["it's", "'it\\'s'"],
    ['back\\slash', "'back\\\\slash'"],
    ['\u0001\u007f', "'\\u0001\\u007F'"],
    ['\ud800x', "'\\uD800x'"],
    ['x\udc00', "'x\\uDC00'"],
    ['😀', "'😀'"],
    [-0, '-0'],
    [1e21, '1e+21'],
    [null, 'null'],
    [false, 'false'],
  ])('%j prints as %s', (value, printed) => {
    expect(formatLiteral(value)).toBe(printed);
  });
});

describe('literalTypeWarnings', () => {
  const schema = {
    type: 'object',
    properties: {
      amount: { type: 'number' },
      count: { type: 'integer' },
      kind: { type: 'string', enum: ['medical bill', 'letter'] },
      status: { const: 'open' },
      note: { type: ['string', 'null'] },
      approved: { type: 'boolean' },
      address: { type: 'string' },
      claim: {
        type: 'object',
        properties: { id: { type: 'string' } },
        additionalProperties: false,
      },
      free: { type: 'object' },
    },
    additionalProperties: false,
  };
  it.each([
    ['amount == 20', []],
    ['count >= 2.5', []],
    ["kind == 'letter'", []],
    ['note == null', []],
    ["note != 'x'", []],
    ['approved == true', []],
    ['free.anything == 1', []],
    ['amount == null', []],
    [
      "amount == '20'",
      [
        "amount == '20' is always false: amount is a number in the output schema, and '20' is a string.",
      ],
    ],
    [
      "amount != '20'",
      [
        "amount != '20' is always true: amount is a number in the output schema, and '20' is a string.",
      ],
    ],
    [
      'count == true',
      [
        'count == true is always false: count is an integer in the output schema, and true is a boolean.',
      ],
    ],
    [
      'note == 3',
      [
        'note == 3 is always false: note is a string or null in the output schema, and 3 is a number.',
      ],
    ],
    [
      "kind == 'medical bil'",
      [
        "kind == 'medical bil' is always false: the output schema allows kind to be only 'medical bill', 'letter'.",
      ],
    ],
    [
      "status != 'closed'",
      ["status != 'closed' is always true: the output schema allows status to be only 'open'."],
    ],
    ["kind > 'a'", []],
    [
      "colour == 'red'",
      [
        "colour == 'red' is always false: the output schema has no field colour, so colour reads as null.",
      ],
    ],
    [
      'colour == null',
      [
        'colour == null is always true: the output schema has no field colour, so colour reads as null.',
      ],
    ],
    [
      "claim.ref == 'x'",
      [
        "claim.ref == 'x' is always false: claim in the output schema has no field ref, so claim.ref reads as null.",
      ],
    ],
    [
      "address.city == 'Oslo'",
      [
        "address.city == 'Oslo' is always false: address is a string, not an object, so address.city reads as null.",
      ],
    ],
    ['amount > null', ['amount > null is always false: nothing is ordered against null.']],
    ['approved < true', ['approved < true is always false: true and false have no order.']],
    [
      "amount == 1 or (kind == 'x' and amount == 2)",
      [
        "kind == 'x' is always false: the output schema allows kind to be only 'medical bill', 'letter'.",
      ],
    ],
  ])('%s', (source, warnings) => {
    expect(literalTypeWarnings(parseCondition(source), schema)).toEqual(warnings);
  });

  it('without a schema, reports only orderings that are false for any field', () => {
    expect(
      literalTypeWarnings(parseCondition("amount == '20' and x > null and y >= false")),
    ).toEqual([
      'x > null is always false: nothing is ordered against null.',
      'y >= false is always false: true and false have no order.',
    ]);
  });

  it('ignores schemas it cannot read', () => {
    for (const odd of [
      null,
      'string',
      [],
      { properties: 5 },
      { type: 'object' },
      { properties: { amount: true } },
    ]) {
      expect(literalTypeWarnings(parseCondition("amount == '20'"), odd)).toEqual([]);
    }
  });
});
