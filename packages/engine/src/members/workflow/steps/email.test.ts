import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EmailStepSchema } from '@trellis/mesh/schema';
import { StepError } from '../../../kernel/errors';
import { unpackEmail } from './email';
import type { Item } from '../../../plan/frames';

const sample = (name: string) => readFileSync(new URL(`../../../../../../examples/claims/${name}`, import.meta.url), 'utf8');
const step = EmailStepSchema.parse({ type: 'email', id: { field: 'claim_id', header: 'X-Claim-Id', pattern: '\\b(CLM-\\d+)\\b' } });
const item = (text: unknown): Item => ({ payload: { text }, frames: [{ split: 'outer', index: 2, count: 5 }], void: false });

async function rejection(p: Promise<unknown>): Promise<StepError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof StepError)) throw new Error(`expected a StepError, got ${String(err)}`);
  return err;
}

function mail(headers: string, parts: { type: string; encoding: string; body: string; name?: string }[]): string {
  const b = 'b-1';
  const body = parts
    .map((p) => {
      const disposition = p.name ? `Content-Disposition: attachment; filename="${p.name}"\n` : '';
      return `--${b}\nContent-Type: ${p.type}\n${disposition}Content-Transfer-Encoding: ${p.encoding}\n\n${p.body}\n`;
    })
    .join('');
  return `${headers}MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="${b}"\n\n${body}--${b}--\n`;
}

describe('email step', () => {
  it('sends one part per attachment with split frames, the id from the subject and decoded text', async () => {
    const out = await unpackEmail('intake', step, item(sample('clm-1001.eml')), 'msg-1');
    expect(out.map((i) => i.frames)).toEqual([
      [{ split: 'outer', index: 2, count: 5 }, { split: 'msg-1', index: 0, count: 2 }],
      [{ split: 'outer', index: 2, count: 5 }, { split: 'msg-1', index: 1, count: 2 }],
    ]);
    const [form, bill] = out.map((i) => i.payload as Record<string, unknown>);
    expect(form).toMatchObject({
      claim_id: 'CLM-1001',
      file_name: 'claim-form.txt',
      content_type: 'text/plain',
      from: 'marta.ilves@example.net',
      from_name: 'Marta Ilves',
      subject: 'Claim CLM-1001: fall at home, documents attached',
      date: '2026-10-28T07:14:03.000Z',
      message_id: '<20261028091403.4411@mail.example.net>',
    });
    expect(form?.text).toContain('Policy number: HM-448812'); // base64
    expect(bill?.text).toContain('Dr. Ülle Saar'); // quoted-printable, UTF-8
    expect(bill?.text).toContain('reference NGC=55120');
    expect(bill?.size).toBe(Buffer.byteLength(String(bill?.text), 'utf8'));
    expect(bill?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('prefers the id header to the subject and decodes a declared charset', async () => {
    const raw = mail('From: a@example.com\nSubject: CLM-1\nX-Claim-Id: CLM-77\n', [
      { type: 'text/plain; charset=iso-8859-1', encoding: 'quoted-printable', body: 'caf=E9', name: 'note.txt' },
      { type: 'application/pdf', encoding: 'base64', body: 'JVBERi0xLjQK', name: 'scan.pdf' },
    ]);
    const out = (await unpackEmail('intake', step, item(raw), 'k')).map((i) => i.payload as Record<string, unknown>);
    expect(out.map((p) => [p.claim_id, p.file_name, p.text, p.size])).toEqual([
      ['CLM-77', 'note.txt', 'café', 4],
      ['CLM-77', 'scan.pdf', null, 9],
    ]);
  });

  it('reads the bytes of an email that is not UTF-8 from base64, each part in its own charset', async () => {
    const latin1 = Buffer.from(
      mail('From: a@example.com\nSubject: CLM-9\n', [{ type: 'text/plain; charset=iso-8859-1', encoding: '8bit', body: 'caf\u00e9 cr\u00e8me', name: 'menu.txt' }]),
      'latin1',
    );
    const out = await unpackEmail('intake', step, { payload: { base64: latin1.toString('base64') }, frames: [], void: false }, 'k');
    expect(out.map((i) => (i.payload as Record<string, unknown>).text)).toEqual(['café crème']);
  });

  it('sends one void with an empty frame for an email without attachments, and forwards a void', async () => {
    const raw = mail('From: a@example.com\nSubject: CLM-5 hello\n', [{ type: 'text/plain', encoding: '7bit', body: 'just a body' }]);
    expect(await unpackEmail('intake', step, item(raw), 'k')).toEqual([
      { payload: {}, frames: [{ split: 'outer', index: 2, count: 5 }, { split: 'k', index: 0, count: 0 }], void: true },
    ]);
    const v: Item = { payload: {}, frames: [], void: true };
    expect(await unpackEmail('intake', step, v, 'k')).toEqual([{ payload: {}, frames: [{ split: 'k', index: 0, count: 0 }], void: true }]);
  });

  it.each([
    ['a missing field', undefined, /the payload has neither text \(the .eml file's text\) nor base64/],
    ['a number', 42, /field text is not text \(number\)/],
    ['text that is not an email', 'hello, this is a letter\n\nwith no headers', /no From header/],
    ['an email without the id', 'From: a@example.com\nSubject: hello\n\nbody', /no X-Claim-Id header and no match of .* in the subject "hello"/],
    [
      'an attachment that is not valid in its charset',
      mail('From: a@example.com\nSubject: CLM-1\n', [{ type: 'text/plain; charset=utf-8', encoding: 'base64', body: '/w==', name: 'bad.txt' }]),
      /attachment bad.txt is not valid utf-8/,
    ],
    [
      'an unknown charset',
      mail('From: a@example.com\nSubject: CLM-1\n', [{ type: 'text/plain; charset=x-nowhere', encoding: '7bit', body: 'hi', name: 'odd.txt' }]),
      /charset x-nowhere, which is not known/,
    ],
  ])('refuses %s with input_rejected naming the member', async (_, text, message) => {
    const err = await rejection(unpackEmail('intake', step, item(text), 'k'));
    expect(err.cause).toBe('input_rejected');
    expect(err.member).toBe('intake');
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/^intake cannot read the email: /);
    expect(err.message).toMatch(message);
  });
});

describe('email step schema', () => {
  it('refuses an id with neither header nor pattern, and a pattern that is not a regular expression', () => {
    expect(EmailStepSchema.safeParse({ type: 'email', id: { field: 'claim_id' } }).success).toBe(false);
    expect(EmailStepSchema.safeParse({ type: 'email', id: { pattern: '(' } }).success).toBe(false);
    expect(EmailStepSchema.parse({ type: 'email' })).toEqual({ type: 'email', field: 'text', base64Field: 'base64' });
  });
});
