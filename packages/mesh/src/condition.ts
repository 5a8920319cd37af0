/**
 * The channel condition language (DESIGN.md §1): comparisons of a message field path with a literal,
 * joined by `and` / `or` with parentheses, `and` binding tighter than `or`. Nothing else.
 * A hand-written tokenizer and recursive-descent parser build an AST; the evaluator walks it
 * without `eval`, so the browser, the server and the workers share one truth.
 */
import {
  comparisonsOf,
  formatCondition,
  formatLiteral,
  hex4,
  type ComparisonNode,
  type ComparisonOperator,
  type ConditionLiteral,
  type ConditionNode,
} from './condition-ast';
import { ConditionError, Lexer, type Token } from './condition-lexer';

export {
  COMPARISON_OPERATORS,
  comparisonsOf,
  formatCondition,
  formatLiteral,
  type ComparisonNode,
  type ComparisonOperator,
  type ConditionLiteral,
  type ConditionNode,
  type LogicalNode,
} from './condition-ast';
export { ConditionError } from './condition-lexer';

// Deep enough for any condition a person writes; shallow enough that recursion never overflows the stack.
const MAX_NESTING = 64;

/**
 * Parses a condition into its AST.
 * @throws ConditionError with the 0-based position and what was expected there.
 */
export function parseCondition(source: string): ConditionNode {
  const parser = new Parser(source);
  const node = parser.parseOr(undefined, 0);
  const next = parser.lexer.peek();
  if (next.kind !== 'end') {
    throw parser.fail("expected 'and', 'or' or the end of the condition", next);
  }
  return node;
}

class Parser {
  readonly lexer: Lexer;

  constructor(source: string) {
    this.lexer = new Lexer(source);
  }

  parseOr(after: string | undefined, depth: number): ConditionNode {
    const operands = [this.parseAnd(after, depth)];
    while (this.isWord(this.lexer.peek(), 'or')) {
      this.lexer.next();
      operands.push(this.parseAnd('or', depth));
    }
    return operands.length === 1 && operands[0] ? operands[0] : { type: 'or', operands };
  }

  private parseAnd(after: string | undefined, depth: number): ConditionNode {
    const operands = [this.parsePrimary(after, depth)];
    while (this.isWord(this.lexer.peek(), 'and')) {
      this.lexer.next();
      operands.push(this.parsePrimary('and', depth));
    }
    return operands.length === 1 && operands[0] ? operands[0] : { type: 'and', operands };
  }

  private parsePrimary(after: string | undefined, depth: number): ConditionNode {
    const token = this.lexer.next();
    if (token.kind === 'lparen') {
      if (depth >= MAX_NESTING) {
        throw new ConditionError(
          `expected at most ${MAX_NESTING} nested parentheses`,
          token.position,
        );
      }
      const inner = this.parseOr('(', depth + 1);
      const close = this.lexer.next();
      if (close.kind !== 'rparen') {
        const hint = `the '(' at character ${token.position + 1} is not closed`;
        throw new ConditionError(
          "expected 'and', 'or' or ')'",
          close.position,
          describeToken(close),
          hint,
        );
      }
      return inner;
    }
    if (token.kind === 'word' && !KEYWORDS.has(token.text)) return this.parseComparison(token.text);
    const where = after === undefined ? '' : ` after '${after}'`;
    throw this.fail(`expected a field name or '('${where}`, token);
  }

  private parseComparison(field: string): ComparisonNode {
    const opToken = this.lexer.next();
    if (opToken.kind !== 'op') {
      throw this.fail(`expected a comparison operator (== != < <= > >=) after '${field}'`, opToken);
    }
    const op = opToken.text as ComparisonOperator;
    const valueToken = this.lexer.next();
    const value = literalOf(valueToken);
    if (value === undefined) throw this.fail(`expected a value after '${op}'`, valueToken, true);
    return { type: 'compare', field, op, value: value.value };
  }

  private isWord(token: Token, word: string): boolean {
    return token.kind === 'word' && token.text === word;
  }

  fail(expected: string, token: Token, wantsValue = false): ConditionError {
    return new ConditionError(
      expected,
      token.position,
      describeToken(token),
      hintFor(token, wantsValue),
    );
  }
}

const KEYWORDS = new Set(['and', 'or', 'true', 'false', 'null']);

function literalOf(token: Token): { value: ConditionLiteral } | undefined {
  switch (token.kind) {
    case 'string':
    case 'number':
      return { value: token.value };
    case 'word':
      if (token.text === 'true') return { value: true };
      if (token.text === 'false') return { value: false };
      if (token.text === 'null') return { value: null };
      return undefined;
    default:
      return undefined;
  }
}

function describeToken(token: Token): string | undefined {
  switch (token.kind) {
    case 'end':
      return undefined;
    case 'string':
      return `the string ${formatLiteral(token.value)}`;
    case 'number':
      return `the number ${token.text}`;
    case 'bad':
      // Invisible characters are named by code point, so the message shows what is there.
      return /^[\p{C}\p{Z}]$/u.test(token.text)
        ? `U+${hex4(token.text.codePointAt(0) ?? 0)}`
        : `'${token.text}'`;
    default:
      return `'${token.text}'`;
  }
}

function hintFor(token: Token, wantsValue: boolean): string | undefined {
  if (token.kind === 'bad') {
    if (token.text === '=') return "use '==' to compare";
    if (token.text === '&&') return "use 'and'";
    if (token.text === '||') return "use 'or'";
    if (token.text === '!') return "use '!=' to compare";
    return undefined;
  }
  if (token.kind !== 'word') return undefined;
  const lower = token.text.toLowerCase();
  if (KEYWORDS.has(lower) && lower !== token.text) return `write '${lower}' in lower case`;
  if (wantsValue && !KEYWORDS.has(token.text))
    return `text needs quotes, like ${formatLiteral(token.text)}`;
  return undefined;
}

/**
 * Reads a dotted field path from a payload. Only own fields of plain objects are followed;
 * anything missing (or reached through a non-object) reads as `null`.
 */
export function readField(payload: unknown, path: string): unknown {
  let current: unknown = payload;
  for (const segment of path.split('.')) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return null;
    if (!Object.hasOwn(current, segment)) return null;
    current = (current as Record<string, unknown>)[segment];
  }
  return current === undefined ? null : current;
}

/**
 * Compares a field value with a literal, type-strictly: `20 == "20"` is false, `null` equals only
 * `null` (which a missing field reads as), and ordering holds only between two numbers or two strings
 * (strings by UTF-16 code unit); an ordering with `null`, booleans or mixed types is false.
 */
export function compareValues(
  actual: unknown,
  op: ComparisonOperator,
  literal: ConditionLiteral,
): boolean {
  if (op === '==') return actual === literal;
  if (op === '!=') return actual !== literal;
  if (typeof actual === 'number' && typeof literal === 'number')
    return ordered(actual, op, literal);
  if (typeof actual === 'string' && typeof literal === 'string')
    return ordered(actual, op, literal);
  return false;
}

function ordered<T extends number | string>(a: T, op: '<' | '<=' | '>' | '>=', b: T): boolean {
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
}

/** Evaluates a parsed condition against a message payload. */
export function evaluateCondition(node: ConditionNode, payload: unknown): boolean {
  switch (node.type) {
    case 'compare':
      return compareValues(readField(payload, node.field), node.op, node.value);
    case 'and':
      return node.operands.every((operand) => evaluateCondition(operand, payload));
    case 'or':
      return node.operands.some((operand) => evaluateCondition(operand, payload));
  }
}

/**
 * Parses once and returns a predicate over payloads.
 * @throws ConditionError when the source does not parse.
 */
export function compileCondition(source: string): (payload: unknown) => boolean {
  const node = parseCondition(source);
  return (payload) => evaluateCondition(node, payload);
}

/**
 * Warnings for comparisons that can never go the way they read, given the JSON Schema of the sending
 * member's output (`{ type: 'object', properties: { ... } }`, as an agent's `outputSchema`):
 * a literal whose type the field's `type` does not allow, a literal outside the field's `enum`,
 * or a field the schema says cannot exist. Without a schema, only what holds for any field is
 * reported: an ordering with `null`, `true` or `false` is always false.
 * @returns one plain sentence per suspicious comparison; empty when nothing looks wrong.
 */
export function literalTypeWarnings(node: ConditionNode, jsonSchema?: unknown): string[] {
  const warnings: string[] = [];
  for (const cmp of comparisonsOf(node)) {
    const text = formatCondition(cmp);
    const ordering = cmp.op !== '==' && cmp.op !== '!=';
    if (ordering && (cmp.value === null || typeof cmp.value === 'boolean')) {
      const why =
        cmp.value === null ? 'nothing is ordered against null' : 'true and false have no order';
      warnings.push(`${text} is always false: ${why}.`);
      continue;
    }
    if (jsonSchema === undefined) continue;
    const field = lookupField(jsonSchema, cmp.field);
    if (field.kind === 'absent') {
      const outcome = compareValues(null, cmp.op, cmp.value);
      warnings.push(
        `${text} is always ${outcome}: ${field.reason}, so ${cmp.field} reads as null.`,
      );
      continue;
    }
    if (field.kind !== 'known' || cmp.value === null) continue;
    const literalType = typeof cmp.value;
    const fits =
      field.types.has(literalType) || (literalType === 'number' && field.types.has('integer'));
    if (field.types.size > 0 && !fits) {
      const outcome = cmp.op === '!=';
      const types = [...field.types].map(article).join(' or ');
      warnings.push(
        `${text} is always ${outcome}: ${cmp.field} is ${types} in the output schema, and ${formatLiteral(cmp.value)} is ${article(literalType)}.`,
      );
      continue;
    }
    if (!ordering && field.enum !== undefined && !field.enum.includes(cmp.value)) {
      const allowed = field.enum
        .map((v) => (isLiteral(v) ? formatLiteral(v) : JSON.stringify(v)))
        .join(', ');
      warnings.push(
        `${text} is always ${cmp.op === '!='}: the output schema allows ${cmp.field} to be only ${allowed}.`,
      );
    }
  }
  return warnings;
}

type FieldInfo =
  | { kind: 'unknown' }
  | { kind: 'absent'; reason: string }
  | { kind: 'known'; types: Set<string>; enum?: unknown[] };

function lookupField(schema: unknown, path: string): FieldInfo {
  let current: unknown = schema;
  let walked = '';
  for (const segment of path.split('.')) {
    if (!isRecord(current)) return { kind: 'unknown' };
    const types = typesOf(current);
    if (types.size > 0 && !types.has('object')) {
      const what = walked === '' ? 'the output' : walked;
      return {
        kind: 'absent',
        reason: `${what} is ${[...types].map(article).join(' or ')}, not an object`,
      };
    }
    const properties = current.properties;
    if (isRecord(properties) && Object.hasOwn(properties, segment)) {
      current = properties[segment];
    } else if (isRecord(properties) && current.additionalProperties === false) {
      const where = walked === '' ? 'the output schema' : `${walked} in the output schema`;
      return { kind: 'absent', reason: `${where} has no field ${segment}` };
    } else {
      return { kind: 'unknown' };
    }
    walked = walked === '' ? segment : `${walked}.${segment}`;
  }
  if (!isRecord(current)) return { kind: 'unknown' };
  const values = Array.isArray(current.enum) ? (current.enum as unknown[]) : undefined;
  const constant = Object.hasOwn(current, 'const') ? [current.const] : undefined;
  const allowed = constant ?? values;
  return allowed === undefined
    ? { kind: 'known', types: typesOf(current) }
    : { kind: 'known', types: typesOf(current), enum: allowed };
}

function typesOf(schema: Record<string, unknown>): Set<string> {
  const type = schema.type;
  if (typeof type === 'string') return new Set([type]);
  if (Array.isArray(type)) return new Set(type.filter((t): t is string => typeof t === 'string'));
  return new Set();
}

function article(type: string): string {
  if (type === 'null') return 'null';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function isLiteral(x: unknown): x is ConditionLiteral {
  return x === null || ['string', 'number', 'boolean'].includes(typeof x);
}
