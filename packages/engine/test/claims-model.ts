/**
 * A local OpenAI-compatible chat completions server for the claims example's test (node:http on
 * 127.0.0.1), so the real `openai` client runs end to end. It is a keyword reader, not a model:
 * it answers structured-output requests (`response_format.json_schema`) from the user message,
 * which the agent runner fills with the payload as JSON.
 *
 * - A schema with `kind` (enum) and `confidence`: the document's `text` is classified. A first line
 *   that starts with an option (`MEDICAL BILL`, `CLAIM FORM - …`) → that kind, confidence 0.95.
 *   Otherwise the kind whose cue words occur most often ({@link CUES}), confidence
 *   0.4 + 0.05 per cue, at most 0.65; no cue at all → `other`, 0.3.
 * - Any other object schema: each property is read from a `Label: value` line of `text` whose label
 *   matches the property name (`policy_number` ↔ `Policy number`); numbers lose thousands
 *   separators; a property with no line → null.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Cue words per kind, lower case. */
export const CUES: Record<string, readonly string[]> = {
  'claim form': ['policy', 'claim', 'date of loss', 'policyholder', 'damage', 'storm', 'roof'],
  'medical bill': ['invoice', 'patient', 'total due', 'clinic', 'physician'],
  'police report': ['report number', 'officer', 'offence', 'station', 'badge'],
};

/** A running keyword server. */
export interface ClaimsModel {
  /** Base URL for `provider.baseUrl`, ending in `/v1`. */
  baseUrl: string;
  /** Each request's schema name (the member or step id) and answer, in order. */
  answers: { schema: string; answer: Record<string, unknown> }[];
  close(): Promise<void>;
}

type Schema = { properties?: Record<string, { type?: unknown; enum?: unknown[] }> };

/** Classifies a document's text as described above. */
export function classify(text: string, kinds: readonly string[]): { kind: string; confidence: number } {
  const lower = text.toLowerCase();
  const first = lower.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  const titled = kinds.find((k) => k !== 'other' && first.startsWith(k));
  if (titled) return { kind: titled, confidence: 0.95 };
  let best = { kind: 'other', hits: 0 };
  for (const kind of kinds) {
    const hits = (CUES[kind] ?? []).filter((cue) => lower.includes(cue)).length;
    if (hits > best.hits) best = { kind, hits };
  }
  if (best.hits === 0) return { kind: 'other', confidence: 0.3 };
  return { kind: best.kind, confidence: Math.min(0.65, 0.4 + 0.05 * best.hits) };
}

/** Reads `Label: value` lines for the schema's properties, as described above. */
export function extract(text: string, schema: Schema): Record<string, unknown> {
  const labelled = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z][A-Za-z ]*?)\s*:\s*(.+?)\s*$/.exec(line);
    if (m?.[1] && m[2]) labelled.set(m[1].toLowerCase().replace(/\s+/g, '_'), m[2]);
  }
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const value = labelled.get(name.toLowerCase());
    const numeric = prop.type === 'number' || (Array.isArray(prop.type) && prop.type.includes('number'));
    out[name] = value === undefined ? null : numeric ? Number(value.replace(/,/g, '')) : value;
  }
  return out;
}

function answerFor(body: Record<string, unknown>): { schema: string; answer: Record<string, unknown> } {
  const format = body.response_format as { json_schema?: { name?: string; schema?: Schema } } | undefined;
  const schema = format?.json_schema?.schema ?? {};
  const messages = body.messages as { role: string; content: unknown }[];
  const user = messages.filter((m) => m.role === 'user').at(-1);
  const payload = JSON.parse(typeof user?.content === 'string' ? user.content : 'null') as { text?: unknown } | null;
  const text = typeof payload?.text === 'string' ? payload.text : '';
  const kind = schema.properties?.kind;
  const answer =
    kind && Array.isArray(kind.enum) && schema.properties?.confidence
      ? classify(text, kind.enum.map(String))
      : extract(text, schema);
  return { schema: format?.json_schema?.name ?? '', answer };
}

/** Starts the server on a free port of 127.0.0.1. */
export async function startClaimsModel(): Promise<ClaimsModel> {
  const answers: ClaimsModel['answers'] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'no such route' } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      const seen = answerFor(body);
      answers.push(seen);
      const completion = {
        id: `chatcmpl-claims-${answers.length}`,
        object: 'chat.completion',
        created: 0,
        model: String(body.model),
        choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(seen.answer), refusal: null }, finish_reason: 'stop', logprobs: null }],
        usage: { prompt_tokens: 200, completion_tokens: 20, total_tokens: 220 },
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
