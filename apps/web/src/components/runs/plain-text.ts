/**
 * Plain sentences for people: an error as stored can carry a stack trace or several lines of
 * detail; the sentence shown is its first line up to any stack frame, and the rest stays one click
 * away (a details disclosure).
 */

/** A stack frame as V8 and isolated-vm print them: `at fn (file.js:1:2)`, `at file.js:1:2`, `at <isolated-vm>:3:9`. */
const FRAME = /(?:^|\s+)at\s+(?:[^\s()]+\s+)?\(?[^\s()]*:\d+(?::\d+)?\)?/;

/** The sentence and whether anything was left out of it (`more`: show the full text on request). */
export function plainSentence(text: string): { sentence: string; more: boolean } {
  const full = text.trim();
  const firstLine = full.split(/\r?\n/)[0] ?? '';
  const frame = FRAME.exec(firstLine);
  const sentence = (frame ? firstLine.slice(0, frame.index) : firstLine).trim().replace(/[\s:;,-]+$/, '');
  return { sentence: sentence || 'The step failed (see the details).', more: sentence !== full };
}
