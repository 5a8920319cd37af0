/**
 * Secrets for stdio tool servers (docs/security.md, "Secrets for tool servers"): a local process
 * has no host, so a secret may go into a tool server's environment only when an admin lists that
 * registered server as `tool:<name>` among the secret's targets. Another server naming the same
 * secret, a secret listing only hosts (even one named like the server) and an HTTP server named only by `tool:` are refused by the
 * secrets policy, and the value stays out of payloads, the trail, the database, logs and errors.
 */
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowInternal, saveOrThrow, storeSecret, useWorlds, type TestWorld } from '../../test/harness';
import type { AgentRunner } from '../kernel/engine';
import type { Logger } from '../kernel/log';
import { rows } from '../kernel/sql';
import { startFakeOpenAI, type FakeOpenAI } from '../members/agent/test/fake-openai';
import { startShoutHttp } from '../members/agent/test/shout-tool';
import { agentRunner } from '../runtime/agent-runner';
import { listMessages } from '../runs/list-messages';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { putToolServer } from '../tools/registry';
import { listToolCalls } from '../tools/trail';

const KEY = 'tool-key-4be1c07d';
let fake: FakeOpenAI;
let http: Awaited<ReturnType<typeof startShoutHttp>>;
beforeAll(async () => {
  [fake, http] = await Promise.all([startFakeOpenAI(), startShoutHttp()]);
});
afterAll(async () => {
  await Promise.all([fake.close(), http.close()]);
});

const keyServer = (secretEnv: Record<string, string>) => ({
  transport: 'stdio',
  command: process.execPath,
  args: ['--import', 'tsx', 'test/key-server.ts'],
  cwd: fileURLToPath(new URL('.', import.meta.url)),
  secretEnv,
});
const mesh = (tools: string[]) => ({
  format: 'trellis.mesh/v1',
  name: `tool-secret-${tools.join('-')}`,
  members: [{ id: 'writer', kind: 'agent', head: true, model: 'tool', tools, provider: { baseUrl: fake.baseUrl } }],
  channels: [],
});

describe('secrets for stdio tool servers', () => {
  const worlds = useWorlds();
  let logged: string[];
  let w: TestWorld;

  /** A world whose agents run as in production: tool secrets come from the store through the engine's guard. */
  async function world(): Promise<TestWorld> {
    logged = [];
    const log: Logger = {
      info: (msg, fields) => logged.push(msg + JSON.stringify(fields ?? {})),
      warn: (msg, fields) => logged.push(msg + JSON.stringify(fields ?? {})),
      error: (msg, fields) => logged.push(msg + JSON.stringify(fields ?? {})),
    };
    const late: { runner?: AgentRunner } = {};
    const opened = await worlds.open({ attempts: 1, backoffMs: 50, log, runAgent: (m, p, s, c) => (late.runner as AgentRunner)(m, p, s, c) });
    late.runner = agentRunner(undefined, { db: opened.engine.db });
    await allowInternal(opened, new URL(fake.baseUrl).host, new URL(http.url).host);
    worlds.start(opened, { pools: ['default'] });
    return opened;
  }

  async function run(tools: string[]) {
    const meshId = await saveOrThrow(w, mesh(tools));
    const { runId } = await startRun(w.engine, { meshId, input: { payload: { text: 'hello' } } });
    const view = await waitForRun(w.engine.db, runId, { timeoutMs: 60_000 });
    const dead = await listMessages(w.engine.db, { runId, status: 'dead' });
    return { view, error: dead.items.map((m) => m.error ?? '').join('\n') };
  }

  /** Every place a value could have leaked to: rows of the run's tables, the log, model requests. */
  async function leaks(): Promise<number> {
    const like = `%${KEY}%`;
    const [row] = await rows<{ n: number }>(
      w.engine.db,
      sql`select (select count(*) from messages m where m::text like ${like})::int
             + (select count(*) from runs r where r::text like ${like})::int
             + (select count(*) from engine_events e where e::text like ${like})::int
             + (select count(*) from tool_calls t where t::text like ${like})::int
             + (select count(*) from secrets s where s::text like ${like})::int as n`,
    );
    const elsewhere = [...logged, JSON.stringify(fake.requests)].filter((t) => t.includes(KEY)).length;
    return (row?.n ?? 0) + elsewhere;
  }

  it('places a secret in the environment of the tool server it names, and redacts it from what comes back', async () => {
    w = await world();
    await storeSecret(w, 'secret', 'SHOUT_KEY', KEY, ['tool:keyed']);
    await putToolServer(w.engine.db, { name: 'keyed', config: keyServer({ SHOUT_KEY: 'SHOUT_KEY' }) });
    const { view } = await run(['keyed']);
    expect(view.status).toBe('done');
    // The server saw the value (it echoed it); the model, the output and the trail see the redaction.
    expect(view.output).toEqual({ text: 'key=[secret SHOUT_KEY]' });
    const calls = await listToolCalls(w.engine.db, view.id);
    expect(calls.map((c) => [c.tool, c.outcome])).toEqual([['keyed__key', 'ok']]);
    expect(await leaks()).toBe(0);
  }, 90_000);

  it('refuses the secret to another registered server, naming the policy, and never starts it', async () => {
    w = await world();
    await storeSecret(w, 'secret', 'SHOUT_KEY', KEY, ['tool:keyed']);
    await putToolServer(w.engine.db, { name: 'keyed', config: keyServer({ SHOUT_KEY: 'SHOUT_KEY' }) });
    await putToolServer(w.engine.db, { name: 'other', config: keyServer({ SHOUT_KEY: 'SHOUT_KEY' }) });
    const toolMessages = () => fake.requests.filter((r) => r.body.messages.some((m) => m.role === 'tool')).length;
    const before = toolMessages();
    const { view, error } = await run(['other']);
    expect(view.status).toBe('failed');
    expect(view.cause).toBe('agent_or_model_missing');
    expect(view.causeMessage).toContain('refused by the secrets policy');
    expect(view.causeMessage).toContain('would place the secret SHOUT_KEY in the environment of tool server "other", which is not one of its targets (tool:keyed)');
    expect(error).toContain('refused by the secrets policy');
    expect(toolMessages()).toBe(before);
    // The worker logged the refusal (so the log is looked at below), without the value.
    expect(logged.join('\n')).toContain('refused by the secrets policy');
    expect(await leaks()).toBe(0);
  }, 90_000);

  it('admits no stdio server on a host of its name or any pattern, and no HTTP server on a tool: target alone', async () => {
    w = await world();
    await storeSecret(w, 'secret', 'SHOUT_KEY', KEY, ['keyed', '*.keyed', '*.test']);
    await storeSecret(w, 'secret', 'WEB_KEY', KEY, ['tool:web']);
    await putToolServer(w.engine.db, { name: 'keyed', config: keyServer({ SHOUT_KEY: 'SHOUT_KEY' }) });
    await putToolServer(w.engine.db, { name: 'web', config: { transport: 'http', url: http.url, secretHeaders: { 'X-Token': 'WEB_KEY' } } });
    const local = await run(['keyed']);
    expect(local.view.cause).toBe('agent_or_model_missing');
    expect(local.view.causeMessage).toContain('refused by the secrets policy: tool server "keyed" would place the secret SHOUT_KEY');
    const before = http.seenHeaders().length;
    const remote = await run(['web']);
    expect(remote.view.cause).toBe('agent_or_model_missing');
    expect(remote.view.causeMessage).toContain(`would send the secret WEB_KEY to ${new URL(http.url).hostname}, which is not one of its hosts (tool:web)`);
    expect(http.seenHeaders().length).toBe(before);
    expect(await leaks()).toBe(0);
  }, 90_000);
});
