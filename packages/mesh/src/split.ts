/**
 * Lossless text splitting for the built-in `split` step (DESIGN.md §5).
 * Separators belong to the part before them, so `parts.join('') === text` always holds,
 * no part is empty, and only the empty text has zero parts.
 */

/** What to cut on: `page` after each form feed, `line` after each LF, `word` after each whitespace run. */
export type SplitBy = 'page' | 'line' | 'word';

// Whitespace for words: space, tab, CR, LF, vertical tab, form feed. Other Unicode spaces stay inside words,
// so the rule is the same in every runtime and never depends on locale.
const WORD = /[^ \t\r\n\v\f]+[ \t\r\n\v\f]*/g;

/**
 * Splits `text` into parts whose concatenation is exactly `text`.
 * - `page`: each part ends with `\f` (except maybe the last).
 * - `line`: each part ends with `\n` (CR stays with its line, so CRLF survives).
 * - `word`: each part is a word and the whitespace after it; whitespace before the first word
 *   belongs to the first part; a text of whitespace only is one part.
 * @returns `[]` for `''`, otherwise at least one non-empty part.
 */
export function splitText(text: string, by: SplitBy): string[] {
  if (text === '') return [];
  if (by === 'word') return splitWords(text);
  const sep = by === 'page' ? '\f' : '\n';
  const parts: string[] = [];
  let start = 0;
  for (let i = text.indexOf(sep); i !== -1; i = text.indexOf(sep, start)) {
    parts.push(text.slice(start, i + 1));
    start = i + 1;
  }
  if (start < text.length) parts.push(text.slice(start));
  return parts;
}

function splitWords(text: string): string[] {
  const parts = text.match(WORD) ?? [];
  const firstWordAt = parts.length === 0 ? text.length : text.length - parts.join('').length;
  if (parts.length === 0) return [text];
  if (firstWordAt > 0) parts[0] = text.slice(0, firstWordAt) + (parts[0] ?? '');
  return parts;
}

/** Joins parts given in `seq` order; the inverse of {@link splitText}. */
export function joinText(parts: readonly string[]): string {
  return parts.join('');
}
