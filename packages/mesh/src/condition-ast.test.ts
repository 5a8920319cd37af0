import { describe, expect, it } from 'vitest';
import { formatLiteral } from './condition-ast';

describe('formatLiteral at the edges of the escaped ranges', () => {
  it.each([
    // Control characters and DEL are escaped; their neighbours are not.
    ['\u001f \u007e\u007f', "'\\u001F ~\\u007F'"],
    // Just outside the surrogate range: ordinary characters.
    ['\ud7ff\ue000\uffff', "'\ud7ff\ue000\uffff'"],
    // Lone surrogates at both ends of the high and the low range.
    ['\ud800', "'\\uD800'"],
    ['\udbff', "'\\uDBFF'"],
    ['\udc00', "'\\uDC00'"],
    ['\udfff', "'\\uDFFF'"],
    // Valid pairs at both ends of the ranges (U+10000 and U+10FFFF) are copied whole.
    ['\ud800\udc00', "'\ud800\udc00'"],
    ['\udbff\udfff', "'\udbff\udfff'"],
    ['a\ud83d\ude00b', "'a\ud83d\ude00b'"],
    // A high surrogate followed by something that is not a low one is lone; what follows is read on its own.
    ['\ud800\ue000', "'\\uD800\ue000'"],
    ["\ud800'", "'\\uD800\\''"],
    ['\ud800\n', "'\\uD800\\n'"],
    ['\ud800\ud800\udc00', "'\\uD800\ud800\udc00'"],
    // A low surrogate is lone unless a high one comes right before it.
    ['\udc00\udc00', "'\\uDC00\\uDC00'"],
    ['\ue000\udc00', "'\ue000\\uDC00'"],
    ['\udfff\udc00', "'\\uDFFF\\uDC00'"],
    ['\udc00\ud800', "'\\uDC00\\uD800'"],
    ['x\udc00\ud800\udc00', "'x\\uDC00\ud800\udc00'"],
  ])('%j prints as %s', (value, printed) => {
    expect(formatLiteral(value)).toBe(printed);
  });
});
