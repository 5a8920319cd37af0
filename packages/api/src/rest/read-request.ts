/**
 * Reading the parts of a REST request. Anything wrong is a `BadInputError` (400 `bad_input`) whose
 * message names the part and field, e.g. `query.wait: Too big: expected number to be <=30`.
 */
import type { z } from 'zod';
import { BadInputError, isEngineError } from '@trellis/engine/errors';
import { readCapped, readJsonText } from '../body-limit';
import { checkJsonText } from '@trellis/engine/security/json-guard';
import type { BodySpec, FileUpload, InputUpload, RawBody } from './contract';

/** The header that names a document sent as the raw body (URL-encoded). */
export const FILE_NAME_HEADER = 'x-file-name';

/** The key of `Authorization: Bearer <key>`, if the request has one. */
export function bearer(req: Request): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get('authorization') ?? '');
  return m?.[1];
}

/**
 * `value` checked by `schema`; `where` (path, query, headers, body) prefixes each field's name.
 * @throws BadInputError naming up to three fields.
 */
export function parsePart<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const got = schema.safeParse(value);
  if (got.success) return got.data;
  const parts = got.error.issues.slice(0, 3).map((i) => `${[where, ...i.path.map(String)].join('.')}: ${i.message}`);
  throw new BadInputError(parts.join('; '));
}

/**
 * The first string in `value` (an object key, or a string anywhere in arrays and objects) holding
 * U+0000, as its field path under `where` (e.g. `body.runIds.0`), or undefined when there is none.
 */
export function findNul(value: unknown, where: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? where : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = `${where}.${key}`;
    if (key.includes('\u0000')) return at;
    const found = findNul(item, at);
    if (found) return found;
  }
  return undefined;
}

/**
 * Refuses a request part holding U+0000 anywhere: Postgres text and jsonb cannot store it, so such
 * a string would otherwise fail deep in a query (a 500) instead of as bad input.
 * @throws BadInputError naming the field, e.g. `path.id: must not contain the NUL character (\u0000)`.
 */
export function refuseNul(value: unknown, where: string): void {
  const at = findNul(value, where);
  if (at) throw new BadInputError(`${at}: must not contain the NUL character (\\u0000)`);
}

/** The request's body as `spec` says: JSON checked by its schema, or the uploaded document. */
export async function readBody(req: Request, spec: BodySpec): Promise<unknown> {
  if (spec.kind === 'file') return readUpload(req);
  if (spec.kind === 'input') return readInput(req);
  if (spec.kind === 'raw') return { bytes: await readCapped(req, 'maxUploadBytes'), contentType: req.headers.get('content-type') } satisfies RawBody;
  return parsePart(spec.schema, await jsonBody(req, !spec.required), 'body');
}

async function jsonBody(req: Request, optional: boolean): Promise<unknown> {
  const text = await readJsonText(req);
  if (text.trim() === '') {
    if (optional) return {};
    throw new BadInputError('body: expected a JSON object');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    throw new BadInputError('body: not valid JSON');
  }
  refuseNul(parsed, 'body');
  return parsed;
}

/**
 * The uploaded document: multipart form data with a `file` field (its file name kept), or the raw
 * body with the name in the `x-file-name` header. Read under TRELLIS_MAX_UPLOAD_BYTES, counted while
 * it streams.
 * @throws LimitExceededError (413) over the cap; BadInputError for a body that is neither form.
 */
async function readUpload(req: Request): Promise<FileUpload> {
  const bytes = await readCapped(req, 'maxUploadBytes');
  try {
    const type = req.headers.get('content-type') ?? '';
    if (type.startsWith('multipart/form-data')) {
      const file = (await new Response(bytes, { headers: { 'content-type': type } }).formData()).get('file');
      if (!(file instanceof Blob)) throw new Error('no file field');
      const name = 'name' in file && typeof file.name === 'string' ? file.name : undefined;
      return { ...(name ? { name } : {}), bytes: new Uint8Array(await file.arrayBuffer()) };
    }
    const name = req.headers.get(FILE_NAME_HEADER);
    return { ...(name ? { name: decodeURIComponent(name) } : {}), bytes };
  } catch (err) {
    if (isEngineError(err, 'limit_exceeded')) throw err;
    throw new BadInputError('send the document as the request body, or as form data with a "file" field');
  }
}

/** True for `application/json` and `application/<x>+json` content types. */
export function isJsonType(type: string | null): boolean {
  return /^application\/([\w.-]+\+)?json\s*(;|$)/i.test(type ?? '');
}

/**
 * A run's input: with `Content-Type: application/json` the body is a JSON object sent to the head
 * as is (read under TRELLIS_MAX_UPLOAD_BYTES, its nesting under TRELLIS_MAX_JSON_DEPTH); anything
 * else is a document, as {@link readUpload} reads it.
 * @throws BadInputError for JSON that does not parse; LimitExceededError (413).
 */
async function readInput(req: Request): Promise<InputUpload> {
  if (!isJsonType(req.headers.get('content-type'))) return readUpload(req);
  const text = new TextDecoder().decode(await readCapped(req, 'maxUploadBytes'));
  checkJsonText(text, 'the request body');
  let payload: unknown;
  try {
    payload = JSON.parse(text) as unknown;
  } catch {
    throw new BadInputError('body: not valid JSON (send a JSON object, or another Content-Type for a document)');
  }
  const name = fileName(req);
  return { ...(name ? { name } : {}), payload };
}

function fileName(req: Request): string | undefined {
  const name = req.headers.get(FILE_NAME_HEADER);
  if (!name) return undefined;
  try {
    return decodeURIComponent(name);
  } catch {
    throw new BadInputError(`headers.${FILE_NAME_HEADER}: expected a URL-encoded file name`);
  }
}
