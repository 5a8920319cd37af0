/**
 * What a SQL step may run: one data or schema statement, never one that changes the session or the
 * transaction (SET, RESET, DISCARD, BEGIN/COMMIT, PREPARE, LISTEN, COPY, DO, CALL, …). A session
 * setting such as `SET SESSION AUTHORIZATION` or a session-wide `search_path` would outlive the
 * step on the embedded database's one connection and reach Trellis's own queries (docs/security.md).
 * An allowlist by first keyword, so a statement PostgreSQL adds later is refused until listed.
 */

/** First keywords a SQL step's query may start with (lower case). */
export const SQL_STEP_KEYWORDS = [
  'select',
  'with',
  'insert',
  'update',
  'delete',
  'merge',
  'values',
  'table',
  'create',
  'alter',
  'drop',
  'truncate',
  'comment',
  'explain',
] as const;

/**
 * The first keyword of `query`, lower case, after leading whitespace, `--` and (nested) `/* … *\/`
 * comments and opening parentheses; '' when there is none (an empty or comment-only query, or one
 * that starts with a symbol).
 */
export function firstSqlKeyword(query: string): string {
  let i = 0;
  for (;;) {
    const ch = query[i];
    if (ch === undefined) return '';
    if (/\s/.test(ch) || ch === '(') {
      i++;
    } else if (query.startsWith('--', i)) {
      const end = query.indexOf('\n', i);
      if (end < 0) return '';
      i = end + 1;
    } else if (query.startsWith('/*', i)) {
      i = endOfBlockComment(query, i);
    } else {
      break;
    }
  }
  return /^[A-Za-z_]+/.exec(query.slice(i))?.[0].toLowerCase() ?? '';
}

/** The index just after the block comment opening at `start` (PostgreSQL nests them); the end of `text` when unclosed. */
function endOfBlockComment(text: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < text.length) {
    if (text.startsWith('/*', i)) {
      depth++;
      i += 2;
    } else if (text.startsWith('*/', i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  return text.length;
}

/**
 * Why `query` may not be a SQL step's query, or null when it may: its first keyword must be one of
 * {@link SQL_STEP_KEYWORDS}.
 */
export function sqlStatementRefusal(query: string): string | null {
  const keyword = firstSqlKeyword(query);
  if ((SQL_STEP_KEYWORDS as readonly string[]).includes(keyword)) return null;
  const found = keyword === '' ? 'no statement keyword' : `a ${keyword.toUpperCase()} statement`;
  return `expected one data or schema statement starting with ${SQL_STEP_KEYWORDS.map((k) => k.toUpperCase()).join(', ')}; found ${found} (statements that change the session or the transaction are not allowed)`;
}
