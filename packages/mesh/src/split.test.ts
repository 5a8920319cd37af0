import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinText, splitText, type SplitBy } from './split';

describe('splitText', () => {
  it.each<[string, SplitBy, string[]]>([
    ['', 'page', []],
    ['', 'line', []],
    ['', 'word', []],
    ['one page', 'page', ['one page']],
    ['p1\fp2\fp3', 'page', ['p1\f', 'p2\f', 'p3']],
    ['p1\f', 'page', ['p1\f']],
    ['\f\f', 'page', ['\f', '\f']],
    ['a\nb\r\nc', 'line', ['a\n', 'b\r\n', 'c']],
    ['a\n\n', 'line', ['a\n', '\n']],
    ['no newline', 'line', ['no newline']],
    ['hello world', 'word', ['hello ', 'world']],
    ['  lead and trail  ', 'word', ['  lead ', 'and ', 'trail  ']],
    ['tab\tsep\r\nnext\fpage', 'word', ['tab\t', 'sep\r\n', 'next\f', 'page']],
    ['   ', 'word', ['   ']],
    ['non\u00a0breaking space', 'word', ['non\u00a0breaking ', 'space']],
  ])('%j by %s', (text, by, parts) => {
    expect(splitText(text, by)).toEqual(parts);
    expect(joinText(parts)).toBe(text);
  });
});

// Mostly separators and a few letters, so texts have many, empty and odd-shaped parts.
const separatorHeavy = fc.string({
  unit: fc.constantFrom('a', 'b', 'é', '😀', ' ', '\t', '\r', '\n', '\f', '\v', '\u00a0', '\u2028'),
  maxLength: 60,
});
const anyText = fc.oneof(
  separatorHeavy,
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ maxLength: 60 }),
);
const splitBy = fc.constantFrom<SplitBy>('page', 'line', 'word');
const WHITESPACE = /^[ \t\r\n\v\f]+$/;

describe('split and join properties', () => {
  it('joinText(splitText(s, by)) === s', () => {
    fc.assert(
      fc.property(anyText, splitBy, (text, by) => {
        expect(joinText(splitText(text, by))).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  it('no part is empty, and only the empty text has zero parts', () => {
    fc.assert(
      fc.property(anyText, splitBy, (text, by) => {
        const parts = splitText(text, by);
        expect(parts.every((part) => part.length > 0)).toBe(true);
        expect(parts.length === 0).toBe(text === '');
      }),
      { numRuns: 1000 },
    );
  });

  it('each page or line ends at its separator and holds no other', () => {
    fc.assert(
      fc.property(anyText, fc.constantFrom<SplitBy>('page', 'line'), (text, by) => {
        const sep = by === 'page' ? '\f' : '\n';
        const parts = splitText(text, by);
        parts.forEach((part, i) => {
          const inner = part.endsWith(sep) ? part.slice(0, -1) : part;
          expect(inner.includes(sep)).toBe(false);
          if (i < parts.length - 1) expect(part.endsWith(sep)).toBe(true);
        });
      }),
    );
  });

  it('each word part holds exactly one word, unless the text is only whitespace', () => {
    fc.assert(
      fc.property(separatorHeavy, (text) => {
        const parts = splitText(text, 'word');
        if (WHITESPACE.test(text)) {
          expect(parts).toEqual([text]);
          return;
        }
        for (const part of parts) {
          expect(part.split(/[ \t\r\n\v\f]+/).filter((w) => w !== '')).toHaveLength(1);
        }
      }),
    );
  });

  it('pages into lines into words, joined back word by word, line by line, page by page, is the text', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const pages = splitText(text, 'page').map((page) =>
          splitText(page, 'line').map((line) => splitText(line, 'word')),
        );
        const joined = joinText(
          pages.map((lines) => joinText(lines.map((words) => joinText(words)))),
        );
        expect(joined).toBe(text);
        for (const words of pages.flat()) expect(words.length).toBeGreaterThan(0);
      }),
      { numRuns: 1000 },
    );
  });
});
