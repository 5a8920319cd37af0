/**
 * The built-in `email` workflow step: unpacks an RFC 5322 message (MIME, attachments in base64 or
 * quoted-printable) with `mailparser` and sends one part per attachment, with split frames, so a
 * combine downstream joins the files of one email. Parsing is asynchronous, so workflows holding
 * this step run on a worker pool (`HEAVY_STEP_TYPES`).
 */
import { createHash } from 'node:crypto';
import { simpleParser, type AddressObject, type Attachment, type ParsedMail } from 'mailparser';
import type { EmailStep } from '@trellis/mesh/schema';
import { firstMatch } from '@trellis/mesh/mesh-pattern';
import { StepError } from '../../../kernel/errors';
import { getField, type Item } from '../../../plan/frames';
import type { UnpackStep } from './types';

/** Largest raw message the step reads, in UTF-16 code units of text or in bytes (the run input's own limit is 64 Mi). */
export const MAX_EMAIL_CHARS = 32 * 1024 * 1024;

/** One attachment as the step sends it on. */
export interface EmailFile {
  message_id: string | null;
  /** The first sender's address, e.g. `marta.ilves@example.net`. */
  from: string | null;
  /** The first sender's display name, e.g. `Marta Ilves`. */
  from_name: string | null;
  subject: string;
  /** ISO 8601, or null when the email has no readable `Date`. */
  date: string | null;
  file_name: string;
  content_type: string;
  /** Decoded size in bytes. */
  size: number;
  /** Hex SHA-256 of the decoded bytes, to register the file. */
  sha256: string;
  /** The decoded content of a textual attachment; null for any other. */
  text: string | null;
}

/**
 * Runs the step on one item: void passes with its own empty frame; otherwise one item per
 * attachment, each carrying the frame `{ split: splitKey, index, count }`, in the email's order.
 * @throws StepError `input_rejected` (not retryable) naming the member and the problem: the field is
 *   missing or not text, the text has no `From` header, a textual attachment does not decode in its
 *   charset or holds a NUL, or the configured id is not found.
 */
export async function unpackEmail(memberId: string, step: EmailStep, item: Item, splitKey: string): Promise<Item[]> {
  const frame = (index: number, count: number) => [...item.frames, { split: splitKey, index, count }];
  if (item.void) return [{ ...item, frames: frame(0, 0) }];
  const text = getField(item.payload, step.field);
  const base64 = text === null ? getField(item.payload, step.base64Field) : null;
  const raw = typeof base64 === 'string' ? Buffer.from(base64, 'base64') : text;
  const files = await readEmail(memberId, step, raw);
  if (files.length === 0) return [{ payload: {}, frames: frame(0, 0), void: true }];
  return files.map((payload, index) => ({ payload, frames: frame(index, files.length), void: false }));
}

/**
 * Parses a raw email (text, or bytes) and returns one payload per attachment (an {@link EmailFile},
 * plus the id field when the step names one).
 * @throws StepError `input_rejected`, as {@link unpackEmail}.
 */
export async function readEmail(memberId: string, step: EmailStep, raw: unknown): Promise<Record<string, unknown>[]> {
  const reject = (problem: string) => new StepError('input_rejected', memberId, `${memberId} cannot read the email: ${problem}`, false);
  if (typeof raw !== 'string' && !Buffer.isBuffer(raw)) {
    throw reject(
      raw === null
        ? `the payload has neither ${step.field} (the .eml file's text) nor ${step.base64Field} (its bytes in base64)`
        : `field ${step.field} is not text (${typeof raw}); it should hold the .eml file's text`,
    );
  }
  if (raw.length > MAX_EMAIL_CHARS) throw reject(`it is larger than ${MAX_EMAIL_CHARS} ${typeof raw === 'string' ? 'characters' : 'bytes'}`);
  let mail: ParsedMail;
  try {
    mail = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true });
  } catch (err) {
    throw reject(`it is not a readable MIME message (${err instanceof Error ? err.message : String(err)})`);
  }
  // RFC 5322 §3.6 requires From (and Date); a text without From is not an email, whatever the parser made of it.
  if (!mail.headers.has('from')) throw reject('it has no From header, so it is not an RFC 5322 message');
  const envelope = {
    message_id: mail.messageId ?? null,
    ...sender(mail.from),
    subject: mail.subject ?? '',
    date: mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date.toISOString() : null,
  };
  const id = step.id ? { [step.id.field]: emailId(mail, step.id, reject) } : {};
  return mail.attachments.map((a, i) => ({ ...id, ...envelope, ...fileOf(a, i, reject) }));
}

function fileOf(a: Attachment, index: number, reject: (problem: string) => StepError): Pick<EmailFile, 'file_name' | 'content_type' | 'size' | 'sha256' | 'text'> {
  const fileName = a.filename ?? `attachment-${index + 1}`;
  const contentType = a.contentType.toLowerCase();
  let text: string | null = null;
  if (isTextual(contentType)) {
    const charset = charsetOf(a) ?? 'utf-8';
    text = decodeText(a.content, charset, fileName, reject);
    if (text.includes('\u0000')) throw reject(`attachment ${fileName} contains a NUL character, which Trellis cannot store`);
  }
  return {
    file_name: fileName,
    content_type: contentType,
    size: a.content.length,
    sha256: createHash('sha256').update(a.content).digest('hex'),
    text,
  };
}

function decodeText(bytes: Buffer, charset: string, fileName: string, reject: (problem: string) => StepError): string {
  let decode: (b: Buffer) => string;
  try {
    const decoder = new TextDecoder(charset, { fatal: true });
    decode = (b) => decoder.decode(b);
  } catch {
    throw reject(`attachment ${fileName} declares charset ${charset}, which is not known`);
  }
  try {
    return decode(bytes);
  } catch {
    throw reject(`attachment ${fileName} is not valid ${charset}`);
  }
}

function isTextual(contentType: string): boolean {
  return (
    contentType.startsWith('text/') ||
    contentType === 'application/json' ||
    contentType === 'application/xml' ||
    contentType.endsWith('+json') ||
    contentType.endsWith('+xml')
  );
}

function charsetOf(a: Attachment): string | undefined {
  const header = a.headers.get('content-type');
  if (typeof header === 'object' && header !== null && 'params' in header) {
    const charset = (header as { params?: Record<string, string> }).params?.charset;
    if (typeof charset === 'string' && charset.trim() !== '') return charset.trim();
  }
  return undefined;
}

function sender(from: AddressObject | AddressObject[] | undefined): { from: string | null; from_name: string | null } {
  const first = (Array.isArray(from) ? from[0] : from)?.value[0];
  return { from: first?.address || null, from_name: first?.name || null };
}

function emailId(
  mail: ParsedMail,
  spec: NonNullable<EmailStep['id']>,
  reject: (problem: string) => StepError,
): string {
  if (spec.header) {
    const value = mail.headers.get(spec.header.toLowerCase());
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  if (spec.pattern) {
    const found = firstMatch(spec.pattern, mail.subject ?? '');
    if (found !== undefined && found !== '') return found;
  }
  const where = [spec.header ? `no ${spec.header} header` : '', spec.pattern ? `no match of /${spec.pattern}/ in the subject "${mail.subject ?? ''}"` : '']
    .filter(Boolean)
    .join(' and ');
  throw reject(`it has ${where}, so its ${spec.field} is unknown`);
}

/** An unpack step (see {@link unpackEmail}): parsing is asynchronous, so it runs on a worker pool. */
export const emailStep: UnpackStep<'email'> = {
  lane: 'unpack',
  splits: true,
  unpack: unpackEmail,
};
