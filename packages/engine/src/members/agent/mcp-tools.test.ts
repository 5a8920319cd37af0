// MCP tools end to end: the real SDK client, a stdio tool server (test/shout-server.ts) run with
// node + tsx, and the local OpenAI-compatible server asking for the tool call.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentMemberSchema, type AgentMember } from '@trellis/mesh/schema';
import { StepError } from '../../kernel/errors';
import type { McpServerRegistry } from './mcp-tools';
import { runAgent } from './run-agent';
import { startFakeOpenAI, type FakeOpenAI } from './test/fake-openai';
import { startShoutHttp } from './test/shout-tool';

let fake: FakeOpenAI;
let http: Awaited<ReturnType<typeof startShoutHttp>>;
beforeAll(async () => {
  [fake, http] = await Promise.all([startFakeOpenAI(), startShoutHttp()]);
});
afterAll(async () => {
  await Promise.all([fake.close(), http.close()]);
});

const here = fileURLToPath(new URL('.', import.meta.url));
const registry: McpServerRegistry = {
  text: { transport: 'stdio', command: process.execPath, args: ['--import', 'tsx', 'test/shout-server.ts'], cwd: here },
  broken: { transport: 'stdio', command: process.execPath, args: ['-e', 'console.error("no config file"); process.exit(3)'] },
  nowhere: { transport: 'stdio', command: '/nonexistent/mcp-server' },
};

function agent(model: string, tools: string[]): AgentMember {
  return AgentMemberSchema.parse({ id: 'writer', kind: 'agent', model, tools, provider: { baseUrl: fake.baseUrl } });
}

async function failure(member: AgentMember, maxSteps?: number): Promise<StepError> {
  const err = await runAgent(member, { text: 'hello mesh' }, { env: {}, tools: registry, ...(maxSteps ? { maxSteps } : {}) }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StepError);
  expect((err as StepError).member).toBe('writer');
  return err as StepError;
}

describe('MCP tools', () => {
  it('offers the granted tools, runs the call on the MCP server and feeds the result back', async () => {
    const result = await runAgent(agent('tool', ['text']), { text: 'hello mesh' }, { env: {}, tools: registry });
    expect(result.output).toEqual({ text: 'HELLO MESH!' });
    const [first, second] = fake.requests.filter((r) => r.model === 'tool');
    const offered = (first?.body.tools ?? []) as { type: string; function: { name: string } }[];
    expect(offered.map((t) => `${t.type}:${t.function.name}`)).toEqual(['function:text__shout']);
    expect(second?.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'HELLO MESH!' });
    expect(result.usage.promptTokens).toBe(2000);
  }, 15_000);

  it('sends the delivery\'s idempotency key with each tool call, in _meta', async () => {
    const result = await runAgent(agent('tool', ['text']), { text: 'hello mesh' }, { env: {}, tools: registry, idempotencyKey: 'msg-1' });
    expect(result.output).toEqual({ text: 'HELLO MESH! (key msg-1)' });
  }, 15_000);

  it('runs tools over streamable HTTP too', async () => {
    const tools: McpServerRegistry = { web: { transport: 'http', url: http.url } };
    const result = await runAgent(agent('tool', ['web']), {}, { env: {}, tools });
    expect(result.output).toEqual({ text: 'HELLO MESH!' });
  }, 15_000);

  it('stops at the step limit with step_code_failed naming the limit', async () => {
    const before = fake.requests.filter((r) => r.model === 'tool-forever').length;
    const err = await failure(agent('tool-forever', ['text']), 3);
    expect(err.cause).toBe('step_code_failed');
    expect(err.message).toContain('step limit of 3');
    expect(fake.requests.filter((r) => r.model === 'tool-forever').length - before).toBe(3);
  }, 15_000);

  it('names the member and the server when a tool server does not start', async () => {
    const exited = await failure(agent('tool', ['broken']));
    expect(exited.cause).toBe('step_code_failed');
    expect(exited.message).toMatch(/tool server "broken" granted to agent writer did not start.*no config file/);
    const missing = await failure(agent('tool', ['nowhere']));
    expect(missing.cause).toBe('agent_or_model_missing');
    expect(missing.message).toContain('"nowhere"');
  }, 15_000);

  it('refuses a tool server that is not configured', async () => {
    const err = await failure(agent('tool', ['text', 'mail']));
    expect(err.cause).toBe('agent_or_model_missing');
    expect(err.message).toContain('"mail"');
  }, 15_000);
});
