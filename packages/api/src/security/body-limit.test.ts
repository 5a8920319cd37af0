// Request bodies counted while they stream: refused as soon as the count passes the cap, never
// read whole; JSON nesting checked before any parser; the refusal is a 413 naming the cap.
import { describe, expect, it } from 'vitest';
import { LimitExceededError } from '@trellis/engine/errors';
import { overrideLimits } from '@trellis/engine/security/env';
import { cappedJsonRequest, readCapped } from '../body-limit';
import { describeApiError } from '../errors';
import { readBody } from '../rest/read-request';

const MB = 1024 * 1024;

/** A streamed body of `chunks` chunks of 1 MiB, counting how many were pulled. */
function streamed(chunks: number, headers: Record<string, string> = {}): { req: Request; pulled: () => number } {
  let pulled = 0;
  const chunk = new Uint8Array(MB).fill(97);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= chunks) return controller.close();
      pulled++;
      controller.enqueue(chunk);
    },
  });
  const req = new Request('http://127.0.0.1/upload', { method: 'POST', body, headers, duplex: 'half' });
  return { req, pulled: () => pulled };
}

describe('request body caps', () => {
  it('stops reading a 200 MB upload just past TRELLIS_MAX_UPLOAD_BYTES and answers 413 naming it', async () => {
    const restore = overrideLimits({ maxUploadBytes: 25 * MB });
    try {
      const { req, pulled } = streamed(200, { 'x-file-name': 'big.txt' });
      const err = await readBody(req, { kind: 'file', description: 'a document' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitExceededError);
      expect((err as Error).message).toMatch(/over TRELLIS_MAX_UPLOAD_BYTES \(26214400 bytes\)/);
      expect(pulled()).toBeLessThanOrEqual(27);
      expect(describeApiError(err)).toMatchObject({ httpStatus: 413, reason: 'limit_exceeded', code: 'PAYLOAD_TOO_LARGE' });
    } finally {
      restore();
    }
  });

  it('refuses a declared content-length over the cap without reading any of it', async () => {
    const restore = overrideLimits({ maxBodyBytes: 4 * MB });
    try {
      const { req, pulled } = streamed(10, { 'content-length': String(10 * MB) });
      await expect(readCapped(req, 'maxBodyBytes')).rejects.toThrow(/10485760 bytes, over TRELLIS_MAX_BODY_BYTES/);
      expect(pulled()).toBeLessThanOrEqual(1);
    } finally {
      restore();
    }
  });

  it('keeps an upload within the cap whole, as raw bytes and as form data', async () => {
    const raw = await readBody(new Request('http://127.0.0.1/u', { method: 'POST', body: 'hello', headers: { 'x-file-name': 'a.txt' } }), { kind: 'file', description: '' });
    expect(raw).toEqual({ name: 'a.txt', bytes: new TextEncoder().encode('hello') });
    const form = new FormData();
    form.set('file', new Blob(['hi there']), 'b.txt');
    const multipart = await readBody(new Request('http://127.0.0.1/u', { method: 'POST', body: form }), { kind: 'file', description: '' });
    expect(multipart).toEqual({ name: 'b.txt', bytes: new TextEncoder().encode('hi there') });
  });

  it('answers a 100,000-level nested JSON body with the depth cap before any parser sees it', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const req = new Request('http://127.0.0.1/api/trpc/meshes.validate', { method: 'POST', body: deep, headers: { 'content-type': 'application/json' } });
    const err = await cappedJsonRequest(req).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LimitExceededError);
    expect((err as Error).message).toMatch(/the request body nests 100000 levels deep, over TRELLIS_MAX_JSON_DEPTH \(64\)/);
    expect(describeApiError(err).httpStatus).toBe(413);
  });

  it('passes a body within the caps on unchanged', async () => {
    const req = new Request('http://127.0.0.1/api/trpc/x', { method: 'POST', body: '{"a":[1,2,{"b":"]]]]"}]}' });
    expect(await (await cappedJsonRequest(req)).text()).toBe('{"a":[1,2,{"b":"]]]]"}]}');
  });
});
