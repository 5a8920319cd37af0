/**
 * A local OpenAI-compatible chat completions server for tests (node:http on 127.0.0.1), so the
 * real `openai` SDK is exercised end to end. The request's `model` picks the behaviour:
 * plain, structured, bad-json, wrong-shape, tool, tool-forever, tool-ungranted (asks for a tool
 * it was not offered, `other__shout`, then answers with what came back), refuse, filter, ratelimit-once,
 * ratelimit-long, ratelimit-always, ratelimit-window (always 429 with `retry-after: 120`), flaky, hang, missing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server received. */
export interface SeenRequest {
  model: string;
  authorization: string | undefined;
  body: Record<string, unknown> & { messages: { role: string; content: unknown; tool_call_id?: string }[] };
  at: number;
  /** When the client closed the connection before any answer (it gave up or was aborted), epoch ms. */
  abortedAt?: number;
}

/** A running fake provider. */
export interface FakeOpenAI {
  /** Base URL for `provider.baseUrl`, ending in `/v1`. */
  baseUrl: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

const USAGE = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 };

function answer(res: ServerResponse, model: string, message: Record<string, unknown>, finish = 'stop'): void {
  const body = {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, finish_reason: finish, logprobs: null }],
    usage: USAGE,
  };
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function fail(res: ServerResponse, status: number, headers: Record<string, string>, message: string, code: string): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code } }));
}

function respond(req: SeenRequest, seen: number, res: ServerResponse): void {
  const { body, model } = req;
  const toolResults = body.messages.filter((m) => m.role === 'tool');
  switch (model) {
    case 'plain':
      return answer(res, model, { content: 'hello from plain' });
    case 'structured':
      // Only a request that asked for structured output gets JSON back.
      return answer(res, model, { content: body.response_format ? '{"kind":"invoice","confidence":0.8}' : 'free text' });
    case 'bad-json':
      return answer(res, model, { content: 'certainly! {kind: invoice' });
    case 'wrong-shape':
      return answer(res, model, { content: '{"kind":"banana","confidence":"high"}' });
    case 'tool':
    case 'tool-forever': {
      const tools = (body.tools ?? []) as { function: { name: string } }[];
      if (model === 'tool' && toolResults.length > 0) return answer(res, model, { content: String(toolResults[0]?.content) });
      const name = tools[0]?.function.name ?? 'none';
      const call = { id: `call_${seen}`, type: 'function', function: { name, arguments: '{"text":"hello mesh"}' } };
      return answer(res, model, { tool_calls: [call] }, 'tool_calls');
    }
    case 'tool-ungranted': {
      if (toolResults.length > 0) return answer(res, model, { content: String(toolResults[0]?.content) });
      const call = { id: `call_${seen}`, type: 'function', function: { name: 'other__shout', arguments: '{"text":"sneaky"}' } };
      return answer(res, model, { tool_calls: [call] }, 'tool_calls');
    }
    case 'refuse':
      return answer(res, model, { refusal: 'I cannot help with that request.' });
    case 'filter':
      return answer(res, model, { content: '' }, 'content_filter');
    case 'ratelimit-once':
      return seen === 1 ? fail(res, 429, { 'retry-after': '1' }, 'Rate limit reached', 'rate_limit_exceeded') : answer(res, model, { content: 'after the wait' });
    case 'ratelimit-long':
      return seen === 1 ? fail(res, 429, { 'retry-after': '3600' }, 'Rate limit reached', 'rate_limit_exceeded') : answer(res, model, { content: 'after a capped wait' });
    case 'ratelimit-always':
      return fail(res, 429, { 'retry-after': '0' }, 'Rate limit reached', 'rate_limit_exceeded');
    case 'ratelimit-window':
      return fail(res, 429, { 'retry-after': '120' }, 'Rate limit reached', 'rate_limit_exceeded');
    case 'flaky':
      return seen === 1 ? fail(res, 503, {}, 'overloaded', 'server_error') : answer(res, model, { content: 'recovered' });
    case 'hang':
      return; // never answers; close() drops the socket
    default:
      return fail(res, 404, {}, `The model \`${model}\` does not exist or you do not have access to it.`, 'model_not_found');
  }
}

/** Starts the server on a free port of 127.0.0.1. */
export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const requests: SeenRequest[] = [];
  const counts = new Map<string, number>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        fail(res, 404, {}, 'no such route', 'not_found');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SeenRequest['body'];
      const model = String(body.model);
      const seen = (counts.get(model) ?? 0) + 1;
      counts.set(model, seen);
      const entry: SeenRequest = { model, authorization: req.headers.authorization, body, at: Date.now() };
      requests.push(entry);
      res.on('close', () => {
        if (!res.writableEnded) entry.abortedAt = Date.now();
      });
      respond(entry, seen, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
