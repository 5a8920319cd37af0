import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputRejectedError } from './errors';
import { decodeUtf8, firstInvalidUtf8, inputPayload } from './input';

describe('run input', () => {
  it.each([
    ['lone continuation byte', [0x80], 0],
    ['truncated sequence', [0x61, 0xe2, 0x82], 1],
    ['overlong encoding', [0xc0, 0xaf], 0],
    ['UTF-16 surrogate', [0x61, 0x62, 0xed, 0xa0, 0x80], 2],
    ['beyond U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
  ])('refuses %s, naming the offset', (_name, bytes, offset) => {
    const data = new Uint8Array(bytes);
    expect(firstInvalidUtf8(data)).toBe(offset);
    expect(() => decodeUtf8(data)).toThrow(new RegExp(`offset ${offset}\\)`));
  });

  it('keeps a byte-order mark so the text round-trips', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]);
    const text = decodeUtf8(bytes);
    expect(text).toBe('\uFEFFhi');
    expect(Buffer.from(text, 'utf8').equals(Buffer.from(bytes))).toBe(true);
  });

  it('round-trips any valid UTF-8 exactly', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        const bytes = new TextEncoder().encode(s);
        expect(firstInvalidUtf8(bytes)).toBe(bytes.length);
        expect(decodeUtf8(bytes)).toBe(s);
      }),
    );
  });

  it('refuses NUL, non-object payloads, and zero or several input forms', () => {
    expect(() => inputPayload({ text: 'a\u0000' })).toThrow(InputRejectedError);
    expect(() => inputPayload({ payload: [1, 2] })).toThrow(/JSON object/);
    expect(() => inputPayload({ payload: { a: 'x\u0000' } })).toThrow(/NUL/);
    expect(() => inputPayload({})).toThrow(/exactly one/);
    expect(() => inputPayload({ text: 'a', payload: {} })).toThrow(/exactly one/);
    expect(inputPayload({ text: '' })).toEqual({ text: '' });
    expect(inputPayload({ payload: { n: 1 } })).toEqual({ n: 1 });
  });

  it('passes an .eml file that is not UTF-8 as base64 of its exact bytes, and refuses any other such file', () => {
    const bytes = new Uint8Array([0x46, 0x72, 0x6f, 0x6d, 0x3a, 0x20, 0x78, 0x0a, 0x0a, 0x63, 0x61, 0x66, 0xe9]);
    const payload = inputPayload({ name: 'Mail.EML', bytes });
    expect(payload).toEqual({ base64: Buffer.from(bytes).toString('base64') });
    expect(Buffer.from(String(payload.base64), 'base64').equals(Buffer.from(bytes))).toBe(true);
    expect(() => inputPayload({ name: 'mail.txt', bytes })).toThrow(/not valid UTF-8 \(first bad byte at offset 12\)/);
    expect(inputPayload({ name: 'mail.eml', bytes: new TextEncoder().encode('From: x\n\nhi') })).toEqual({ text: 'From: x\n\nhi' });
  });
});
