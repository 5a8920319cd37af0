/**
 * Turning a run's input into the head message's payload. Input is bytes: invalid UTF-8 is refused,
 * never replaced, and a byte-order mark is kept (`ignoreBOM`), so the text round-trips exactly.
 */
import { stripPrototypeKeys } from '../security/json-guard';
import { InputRejectedError } from './errors';

/** The run's input: exactly one of `bytes`, `text` or `payload`. */
export interface RunInput {
  /** A file name or label for people. */
  name?: string;
  bytes?: Uint8Array;
  text?: string;
  /** A JSON object sent to the head as is. */
  payload?: unknown;
}

/** Largest input accepted, in UTF-16 code units of text or JSON (64 Mi). */
export const MAX_INPUT_CHARS = 64 * 1024 * 1024;

/**
 * Builds the head payload: text becomes `{ text }`, a payload object is kept. An email file
 * (`.eml`) whose bytes are not UTF-8 (8-bit parts in another charset, which RFC 6152 allows)
 * becomes `{ base64 }` with the exact bytes, for the `email` step to decode part by part.
 * @throws InputRejectedError for invalid UTF-8 (other files), a NUL character (Postgres cannot
 *   store it in JSON), a payload that is not a JSON object, too large an input, or none or several
 *   of the three forms.
 */
export function inputPayload(input: RunInput): Record<string, unknown> {
  const given = [input.bytes, input.text, input.payload].filter((v) => v !== undefined).length;
  if (given !== 1) throw new InputRejectedError('give exactly one of bytes, text or payload');
  if (input.payload !== undefined) return objectPayload(input.payload);
  if (input.bytes && isEmailFile(input.name) && firstInvalidUtf8(input.bytes) < input.bytes.length) {
    const base64 = Buffer.from(input.bytes).toString('base64');
    if (base64.length > MAX_INPUT_CHARS) throw new InputRejectedError(`it is larger than ${MAX_INPUT_CHARS} characters`);
    return { base64 };
  }
  const text = input.bytes ? decodeUtf8(input.bytes) : (input.text ?? '');
  checkText(text);
  return { text };
}

/** True for a file name ending in `.eml` (RFC 5322 message files), any case. */
export function isEmailFile(name: string | undefined): boolean {
  return name !== undefined && /\.eml$/i.test(name.trim());
}

/** Decodes UTF-8 strictly. @throws InputRejectedError naming the first bad byte's offset. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    throw new InputRejectedError(`it is not valid UTF-8 (first bad byte at offset ${at}); convert it to UTF-8 first`);
  }
}

function checkText(text: string): void {
  if (text.length > MAX_INPUT_CHARS) throw new InputRejectedError(`it is larger than ${MAX_INPUT_CHARS} characters`);
  const nul = text.indexOf('\u0000');
  if (nul !== -1) throw new InputRejectedError(`it contains a NUL character at character ${nul}, which Trellis cannot store`);
}

function objectPayload(payload: unknown): Record<string, unknown> {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new InputRejectedError('a payload must be a JSON object');
  }
  let json: string;
  try {
    json = JSON.stringify(payload);
  } catch {
    throw new InputRejectedError('the payload is not JSON');
  }
  if (json.length > MAX_INPUT_CHARS) throw new InputRejectedError(`it is larger than ${MAX_INPUT_CHARS} characters`);
  if (json.includes('\\u0000')) throw new InputRejectedError('it contains a NUL character, which Trellis cannot store');
  // `__proto__`, `constructor` and `prototype` keys are dropped: they reach prototypes when copied.
  return stripPrototypeKeys(JSON.parse(json) as Record<string, unknown>);
}

/** Offset of the first byte that breaks UTF-8 (overlongs, surrogates and > U+10FFFF included). */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i] ?? 0;
    let n = 0;
    let min = 0;
    if (c < 0x80) n = 0;
    else if (c >= 0xc2 && c <= 0xdf) [n, min] = [1, 0x80];
    else if (c >= 0xe0 && c <= 0xef) [n, min] = [2, 0x800];
    else if (c >= 0xf0 && c <= 0xf4) [n, min] = [3, 0x10000];
    else return i;
    let cp = n === 0 ? c : c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const cc = b[i + k];
      if (cc === undefined || (cc & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (n > 0 && (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) return i;
    i += n + 1;
  }
  return b.length;
}
