/**
 * The condition AST and its printer: the types the parser builds and the evaluator walks,
 * and `formatCondition`, which shows the grouping that was parsed. Public through `condition.ts`.
 */

/** A literal a field is compared with. */
export type ConditionLiteral = string | number | boolean | null;

/** The six comparison operators. */
export type ComparisonOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';

/** The six comparison operators, as a list. */
export const COMPARISON_OPERATORS: readonly ComparisonOperator[] = [
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
];

/** `field op value`, e.g. `claim.amount >= 100`. */
export interface ComparisonNode {
  type: 'compare';
  /** Dotted field path into the message payload. */
  field: string;
  op: ComparisonOperator;
  value: ConditionLiteral;
}

/** Two or more conditions joined by the same word; the grouping is exactly what was parsed. */
export interface LogicalNode {
  type: 'and' | 'or';
  operands: ConditionNode[];
}

/** A parsed condition. */
export type ConditionNode = ComparisonNode | LogicalNode;

/**
 * Prints a condition with the grouping it parsed made explicit: every `and` or `or` inside another
 * is wrapped in parentheses, so `a == 1 or b == 2 and c == 3` prints as `a == 1 or (b == 2 and c == 3)`.
 * Parsing the output gives the same AST back.
 */
export function formatCondition(node: ConditionNode): string {
  if (node.type === 'compare') return `${node.field} ${node.op} ${formatLiteral(node.value)}`;
  return node.operands
    .map((operand) =>
      operand.type === 'compare' ? formatCondition(operand) : `(${formatCondition(operand)})`,
    )
    .join(` ${node.type} `);
}

/** Prints a literal as the condition language writes it: strings single-quoted with escapes. */
export function formatLiteral(value: ConditionLiteral): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  let out = "'";
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    const ch = value.charAt(i);
    const named = NAMED_ESCAPES[ch];
    if (named !== undefined) out += named;
    else if (unit < 0x20 || unit === 0x7f || isLoneSurrogate(value, i)) out += `\\u${hex4(unit)}`;
    else out += ch;
    // A valid surrogate pair is copied whole.
    if (unit >= 0xd800 && unit <= 0xdbff && !isLoneSurrogate(value, i)) out += value.charAt(++i);
  }
  return `${out}'`;
}

const NAMED_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  "'": "\\'",
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
  '\v': '\\v',
};

/** A UTF-16 code unit as four upper-case hex digits. */
export function hex4(unit: number): string {
  return unit.toString(16).toUpperCase().padStart(4, '0');
}

function isLoneSurrogate(s: string, i: number): boolean {
  const unit = s.charCodeAt(i);
  if (unit >= 0xd800 && unit <= 0xdbff) {
    const next = s.charCodeAt(i + 1);
    return !(next >= 0xdc00 && next <= 0xdfff);
  }
  if (unit >= 0xdc00 && unit <= 0xdfff) {
    const prev = i > 0 ? s.charCodeAt(i - 1) : 0;
    return !(prev >= 0xd800 && prev <= 0xdbff);
  }
  return false;
}

/** Every comparison in a condition, left to right. */
export function comparisonsOf(node: ConditionNode): ComparisonNode[] {
  return node.type === 'compare' ? [node] : node.operands.flatMap(comparisonsOf);
}
