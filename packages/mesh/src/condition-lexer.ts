/**
 * Tokenizer for the channel condition language (see `condition.ts`). Tokens are read lazily,
 * so errors are reported left to right. Characters the language does not know become `bad`
 * tokens, letting the parser say what it expected in their place.
 */

/**
 * A condition that does not parse: the 0-based position, and a message naming what was expected.
 * The message says where for people, 1-based: `expected a value after '==' at character 10` for
 * position 9; every surface (validation findings, the canvas channel panel, the CLI) shows this
 * same number.
 */
export class ConditionError extends Error {
  /** 0-based UTF-16 offset into the condition where the problem is. */
  readonly position: number;
  /** What the parser expected at `position`, e.g. `expected a value after '=='`. */
  readonly expected: string;
  /** The message without the position, e.g. `expected a value after '==', found ')'`, for a view that points at the spot itself. */
  readonly detail: string;

  constructor(expected: string, position: number, found?: string, hint?: string) {
    const foundPart = found === undefined ? '' : `, found ${found}`;
    const hintPart = hint === undefined ? '' : ` (${hint})`;
    super(`${expected}${foundPart} at character ${position + 1}${hintPart}`);
    this.name = 'ConditionError';
    this.position = position;
    this.expected = expected;
    this.detail = `${expected}${foundPart}${hintPart}`;
  }
}

/** One token of a condition, with its 0-based start position. */
export type Token =
  | { kind: 'word'; text: string; position: number }
  | { kind: 'string'; text: string; value: string; position: number }
  | { kind: 'number'; text: string; value: number; position: number }
  | { kind: 'op'; text: string; position: number }
  | { kind: 'lparen'; text: '('; position: number }
  | { kind: 'rparen'; text: ')'; position: number }
  | { kind: 'bad'; text: string; position: number }
  | { kind: 'end'; text: ''; position: number };

const WHITESPACE = new Set([' ', '\t', '\r', '\n', '\f', '\v']);
const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const OPERATORS = ['==', '!=', '<=', '>=', '<', '>'];
const BAD_PAIRS = ['&&', '||'];
const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  '/': '/',
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  v: '\v',
  '0': '\0',
};
const ESCAPE_LIST = '\\\\, \\\', \\", \\n, \\r, \\t, \\b, \\f, \\v, \\0, \\uXXXX or \\u{X}';

/** A lazy tokenizer with one token of look-ahead. */
export class Lexer {
  private pos = 0;
  private peeked: Token | undefined;

  constructor(private readonly source: string) {}

  /** The next token, without consuming it. */
  peek(): Token {
    this.peeked ??= this.read();
    return this.peeked;
  }

  /** Consumes and returns the next token. */
  next(): Token {
    const token = this.peek();
    this.peeked = undefined;
    return token;
  }

  private read(): Token {
    const src = this.source;
    while (this.pos < src.length && WHITESPACE.has(src.charAt(this.pos))) this.pos++;
    const start = this.pos;
    if (start >= src.length) return { kind: 'end', text: '', position: start };
    const ch = src.charAt(start);
    if (ch === '(' || ch === ')') {
      this.pos++;
      return ch === '('
        ? { kind: 'lparen', text: ch, position: start }
        : { kind: 'rparen', text: ch, position: start };
    }
    if (ch === "'" || ch === '"') return this.readString(ch);
    if (IDENT_START.test(ch)) return this.readWord();
    NUMBER.lastIndex = start;
    const number = NUMBER.exec(src);
    if (number) return this.readNumber(number[0]);
    for (const text of [...OPERATORS, ...BAD_PAIRS]) {
      if (src.startsWith(text, start)) {
        this.pos += text.length;
        return { kind: OPERATORS.includes(text) ? 'op' : 'bad', text, position: start };
      }
    }
    // One whole code point, so an emoji is shown as itself rather than half a surrogate pair.
    const text = String.fromCodePoint(src.codePointAt(start) ?? 0);
    this.pos += text.length;
    return { kind: 'bad', text, position: start };
  }

  private readWord(): Token {
    const src = this.source;
    const start = this.pos;
    for (;;) {
      this.pos++; // the current character is an identifier start
      while (this.pos < src.length && IDENT_PART.test(src.charAt(this.pos))) this.pos++;
      if (src.charAt(this.pos) !== '.') break;
      const after = this.pos + 1;
      if (after >= src.length || !IDENT_START.test(src.charAt(after))) {
        const found = after >= src.length ? undefined : `'${src.charAt(after)}'`;
        throw new ConditionError("expected a field name after '.'", after, found);
      }
      this.pos = after;
    }
    return { kind: 'word', text: src.slice(start, this.pos), position: start };
  }

  private readNumber(text: string): Token {
    const start = this.pos;
    const value = Number(text);
    if (!Number.isFinite(value)) {
      throw new ConditionError(
        'expected a number no larger than about 1.8e308',
        start,
        `the number ${text}`,
      );
    }
    this.pos += text.length;
    return { kind: 'number', text, value, position: start };
  }

  private readString(quote: string): Token {
    const src = this.source;
    const start = this.pos;
    let value = '';
    let i = start + 1;
    for (;;) {
      if (i >= src.length)
        throw new ConditionError(`expected a closing ${quote} for the string`, start);
      const ch = src.charAt(i);
      if (ch === quote) break;
      if (ch !== '\\') {
        value += ch;
        i++;
        continue;
      }
      const [decoded, next] = this.readEscape(i);
      value += decoded;
      i = next;
    }
    this.pos = i + 1;
    return { kind: 'string', text: src.slice(start, this.pos), value, position: start };
  }

  /** Decodes the escape whose backslash is at `at`; returns the text and the index after it. */
  private readEscape(at: number): [string, number] {
    const src = this.source;
    const ch = src.charAt(at + 1);
    const simple = SIMPLE_ESCAPES[ch];
    if (simple !== undefined) return [simple, at + 2];
    if (ch === 'u') {
      const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(src.slice(at + 2, at + 10));
      if (braced?.[1] !== undefined) {
        const code = parseInt(braced[1], 16);
        if (code <= 0x10ffff) return [String.fromCodePoint(code), at + 2 + braced[0].length];
      }
      const four = src.slice(at + 2, at + 6);
      if (/^[0-9A-Fa-f]{4}$/.test(four)) return [String.fromCharCode(parseInt(four, 16)), at + 6];
    }
    const found = at + 1 >= src.length ? undefined : `'\\${ch}'`;
    throw new ConditionError(`expected an escape (${ESCAPE_LIST}) after '\\'`, at, found);
  }
}
