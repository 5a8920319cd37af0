// The real `openai` SDK against a local OpenAI-compatible server (test/fake-openai.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cause } from '@trellis/mesh/causes';
import { AgentMemberSchema, type AgentMember } from '@trellis/mesh/schema';
import { StepError } from '../../kernel/errors';
import { runAgent, type RunAgentOptions } from './run-agent';
import { startFakeOpenAI, type FakeOpenAI } from './test/fake-openai';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
});

const env = { TEST_LLM_KEY: 'sk-test-123' };
const schema = {
  type: 'object',
  properties: { kind: { enum: ['invoice', 'letter'] }, confidence: { type: 'number' } },
  required: ['kind', 'confidence'],
};

function agent(model: string, extra: Partial<AgentMember> = {}): AgentMember {
  return AgentMemberSchema.parse({
    id: 'classify',
    kind: 'agent',
    model,
    instructions: 'Classify the document.',
    provider: { baseUrl: fake.baseUrl, apiKeyEnv: 'TEST_LLM_KEY' },
    ...extra,
  });
}

function requestsFor(model: string) {
  return fake.requests.filter((r) => r.model === model);
}

async function failure(member: AgentMember, opts: Partial<RunAgentOptions> = {}): Promise<StepError> {
  const err = await runAgent(member, { text: 'x' }, { env, ...opts }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StepError);
  return err as StepError;
}

async function expectCause(member: AgentMember, cause: Cause, opts: Partial<RunAgentOptions> = {}): Promise<StepError> {
  const err = await failure(member, opts);
  expect({ cause: err.cause, member: err.member }).toEqual({ cause, member: 'classify' });
  return err;
}

describe('runAgent against an OpenAI-compatible endpoint', () => {
  it('sends instructions, the payload as JSON, temperature and the key from env; returns { text } and usage', async () => {
    const result = await runAgent(agent('plain', { temperature: 0.2 }), { text: 'Invoice 42' }, { env });
    expect(result).toEqual({ output: { text: 'hello from plain' }, usage: { promptTokens: 1000, completionTokens: 500, costUsd: null }, demo: false });
    const [req] = requestsFor('plain');
    expect(req?.authorization).toBe('Bearer sk-test-123');
    expect(req?.body.temperature).toBe(0.2);
    expect(req?.body.messages).toEqual([
      { role: 'system', content: 'Classify the document.' },
      { role: 'user', content: '{"text":"Invoice 42"}' },
    ]);
  });

  it('asks for structured output and returns the parsed, validated answer', async () => {
    const result = await runAgent(agent('structured', { outputSchema: schema }), { text: 'x' }, { env });
    expect(result.output).toEqual({ kind: 'invoice', confidence: 0.8 });
    const format = requestsFor('structured')[0]?.body.response_format;
    expect(format).toEqual({ type: 'json_schema', json_schema: { name: 'classify', schema, strict: false } });
  });

  it('fails with outcome_unreadable when the answer is not JSON or does not match the schema', async () => {
    const notJson = await expectCause(agent('bad-json', { outputSchema: schema }), 'outcome_unreadable');
    expect(notJson.message).toContain('not JSON');
    const mismatch = await expectCause(agent('wrong-shape', { outputSchema: schema }), 'outcome_unreadable');
    expect(mismatch.message).toMatch(/kind.*confidence/);
  });

  it('fails with content_refused on a refusal and on finish_reason content_filter', async () => {
    const refused = await expectCause(agent('refuse'), 'content_refused');
    expect(refused.message).toContain('I cannot help');
    expect(refused.retryable).toBe(false);
    await expectCause(agent('filter'), 'content_refused');
  });

  it('waits as long as retry-after says after a 429, then succeeds', async () => {
    const started = Date.now();
    const result = await runAgent(agent('ratelimit-once'), {}, { env });
    expect(result.output).toEqual({ text: 'after the wait' });
    const [first, second] = requestsFor('ratelimit-once');
    expect(second).toBeDefined();
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('caps a long retry-after at maxWaitMs', async () => {
    const started = Date.now();
    const result = await runAgent(agent('ratelimit-long'), {}, { env, retry: { maxWaitMs: 200 } });
    expect(result.output).toEqual({ text: 'after a capped wait' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('fails with rate_limited once the retries are used up', async () => {
    const err = await expectCause(agent('ratelimit-always'), 'rate_limited', { retry: { maxRetries: 2 } });
    expect(err.message).toContain('after 2 retries');
    expect(requestsFor('ratelimit-always')).toHaveLength(3);
  });

  it('retries a 5xx answer', async () => {
    const result = await runAgent(agent('flaky'), {}, { env, retry: { maxWaitMs: 50 } });
    expect(result.output).toEqual({ text: 'recovered' });
    expect(requestsFor('flaky')).toHaveLength(2);
  });

  it('fails with timed_out when the request timeout passes or the signal aborts', async () => {
    const started = Date.now();
    await expectCause(agent('hang'), 'timed_out', { requestTimeoutMs: 300 });
    await expectCause(agent('hang'), 'timed_out', { signal: AbortSignal.timeout(300) });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('fails with agent_or_model_missing for an unknown model, an unset key or no provider', async () => {
    const unknown = await expectCause(agent('no-such-model'), 'agent_or_model_missing');
    expect(unknown.message).toContain('404');
    const before = fake.requests.length;
    const noKey = await expectCause(agent('plain'), 'agent_or_model_missing', { env: {} });
    expect(noKey.message).toContain('TEST_LLM_KEY');
    await expectCause(agent('plain', { provider: undefined }), 'agent_or_model_missing');
    expect(fake.requests.length).toBe(before);
  });
});

describe('spend budget', () => {
  it('fails with budget_spent when the tokens pass maxTokens, counting what the run already spent', async () => {
    await expectCause(agent('plain'), 'budget_spent', { budget: { maxTokens: 1499 } });
    await expect(runAgent(agent('plain'), {}, { env, budget: { maxTokens: 1500 } })).resolves.toBeDefined();
    await expectCause(agent('plain'), 'budget_spent', { budget: { maxTokens: 2000, spentTokens: 501 } });
  });

  it('prices the call from the table and fails with budget_spent over maxCostUsd', async () => {
    const prices = { plain: { inputPerMillion: 1, outputPerMillion: 2 } };
    const ok = await runAgent(agent('plain'), {}, { env, prices, budget: { maxCostUsd: 0.002 } });
    expect(ok.usage.costUsd).toBeCloseTo(0.002, 9);
    const err = await expectCause(agent('plain'), 'budget_spent', { prices, budget: { maxCostUsd: 0.0019 } });
    expect(err.message).toContain('$0.002');
  });

  it('keeps only the token budget for a model without a price', async () => {
    const result = await runAgent(agent('plain'), {}, { env, prices: {}, budget: { maxCostUsd: 0.000001 } });
    expect(result.usage.costUsd).toBeNull();
  });
});
