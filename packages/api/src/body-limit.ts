/**
 * Request bodies read under the caps (engine security/env.ts), counted while they stream: the read
 * stops and the request is refused as soon as the count passes the cap, so a 200 MB upload never
 * sits in memory. A `content-length` over the cap is refused before anything is read.
 */
import { LimitExceededError } from '@trellis/engine/errors';
import { LIMIT_VARIABLE, limits, type Limits } from '@trellis/engine/security/env';
import { checkJsonText } from '@trellis/engine/security/json-guard';

/** Which cap applies: JSON bodies (REST, tRPC) or uploaded documents. */
export type BodyCap = keyof Pick<Limits, 'maxBodyBytes' | 'maxUploadBytes'>;

function tooLarge(cap: BodyCap, max: number, seen: string): LimitExceededError {
  return new LimitExceededError(LIMIT_VARIABLE[cap], max, `the request body is ${seen}, over ${LIMIT_VARIABLE[cap]} (${max} bytes)`);
}

/**
 * The body's bytes, read chunk by chunk; at most the cap plus one chunk is ever held.
 * @throws LimitExceededError (413) naming the cap.
 */
export async function readCapped(req: Request, cap: BodyCap): Promise<Uint8Array<ArrayBuffer>> {
  const max = limits()[cap];
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > max) throw tooLarge(cap, max, `${declared} bytes`);
  if (!req.body) return new Uint8Array(new ArrayBuffer(0));
  // The DOM typings give the body's chunks as `any`; a fetch Request body yields bytes.
  const reader = (req.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(cap, max, `more than ${max} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * The body as text under TRELLIS_MAX_BODY_BYTES, with its JSON nesting checked against
 * TRELLIS_MAX_JSON_DEPTH before any parser sees it.
 * @throws LimitExceededError (413) naming the cap.
 */
export async function readJsonText(req: Request): Promise<string> {
  const text = new TextDecoder().decode(await readCapped(req, 'maxBodyBytes'));
  checkJsonText(text, 'the request body');
  return text;
}

/**
 * `req` with its body read under the JSON caps (see {@link readJsonText}) and put back, for
 * handlers that read the body themselves (the tRPC adapter). Requests without a body pass as they are.
 * @throws LimitExceededError (413) naming the cap.
 */
export async function cappedJsonRequest(req: Request): Promise<Request> {
  if (req.method === 'GET' || req.method === 'HEAD' || !req.body) return req;
  const text = await readJsonText(req);
  return new Request(req.url, { method: req.method, headers: req.headers, body: text, signal: req.signal });
}
