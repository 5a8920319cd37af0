// The tool registry in real runs: admin-registered MCP servers (a stdio process and a streamable
// HTTP server, both the real SDK), an OpenAI-compatible model server that asks for the tool call,
// grants by name, and a call outside the grants refused and put on the run's trail.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowInternal, saveOrThrow, useWorlds, type TestWorld } from '../../test/harness';
import type { AgentRunner } from '../kernel/engine';
import { MeshInvalidError } from '../kernel/errors';
import { agentRunner } from '../runtime/agent-runner';
import { startFakeOpenAI, type FakeOpenAI } from '../members/agent/test/fake-openai';
import { startShoutHttp } from '../members/agent/test/shout-tool';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { putToolServer } from '../tools/registry';
import { secretsFromMap } from '../tools/secrets';
import { listToolCalls } from '../tools/trail';

let fake: FakeOpenAI;
let http: Awaited<ReturnType<typeof startShoutHttp>>;
beforeAll(async () => {
  [fake, http] = await Promise.all([startFakeOpenAI(), startShoutHttp()]);
});
afterAll(async () => {
  await Promise.all([fake.close(), http.close()]);
});

const agentsDir = fileURLToPath(new URL('../members/agent', import.meta.url));
const shoutStdio = { transport: 'stdio', command: process.execPath, args: ['--import', 'tsx', 'test/shout-server.ts'], cwd: agentsDir };

const mesh = (model: string, tools: string[]) => ({
  format: 'trellis.mesh/v1',
  name: `tools-${model}`,
  members: [{ id: 'writer', kind: 'agent', head: true, model, tools, provider: { baseUrl: fake.baseUrl } }],
  channels: [],
});

describe('tool registry in real runs', () => {
  const worlds = useWorlds();

  /** A world whose engine runs agents through the governed runner on its own database. */
  async function governedWorld(secrets: Record<string, string> = {}): Promise<TestWorld> {
    const late: { runner?: AgentRunner } = {};
    const world = await worlds.open({ runAgent: (m, p, s, c) => (late.runner as AgentRunner)(m, p, s, c) });
    late.runner = agentRunner(undefined, { db: world.engine.db, secrets: secretsFromMap(secrets) });
    // The fake model server and the HTTP tool server are local: an admin allows them by name.
    await allowInternal(world, new URL(fake.baseUrl).host, new URL(http.url).host);
    worlds.start(world);
    return world;
  }

  async function run(world: TestWorld, definition: unknown) {
    const meshId = await saveOrThrow(world, definition);
    const { runId } = await startRun(world.engine, { meshId, input: { payload: { text: 'hello mesh' } } });
    return waitForRun(world.engine.db, runId, { timeoutMs: 60_000 });
  }

  it('runs a granted stdio tool registered by an admin, and records the call', async () => {
    const world = await governedWorld();
    await putToolServer(world.engine.db, { name: 'text', config: shoutStdio });
    const view = await run(world, mesh('tool', ['text']));
    expect(view.status).toBe('done');
    expect(view.output).toEqual({ text: expect.stringMatching(/^HELLO MESH!/) as unknown });
    const calls = await listToolCalls(world.engine.db, view.id);
    expect(calls.map((c) => [c.member, c.tool, c.server, c.outcome])).toEqual([['writer', 'text__shout', 'text', 'ok']]);
  }, 60_000);

  it('runs a granted streamable-HTTP tool, its header revealed from the secrets store', async () => {
    const world = await governedWorld({ 'shout_token': 'tok-123' });
    await putToolServer(world.engine.db, { name: 'web', config: { transport: 'http', url: http.url, secretHeaders: { 'X-Token': 'shout_token' } } });
    const view = await run(world, mesh('tool', ['web']));
    expect(view.status).toBe('done');
    expect(view.output).toEqual({ text: expect.stringMatching(/^HELLO MESH!/) as unknown });
    expect(http.seenHeaders().some((h) => h['x-token'] === 'tok-123')).toBe(true);
  }, 60_000);

  it('refuses a call outside the grants and puts it on the trail; the ungranted server is never started', async () => {
    const world = await governedWorld();
    await putToolServer(world.engine.db, { name: 'text', config: shoutStdio });
    await putToolServer(world.engine.db, { name: 'other', config: { transport: 'http', url: http.url } });
    const before = http.seenHeaders().length;
    const view = await run(world, mesh('tool-ungranted', ['text']));
    expect(view.status).toBe('done');
    expect(view.output).toEqual({ text: expect.stringMatching(/^error: refused: tool other__shout is not granted to agent writer/) as unknown });
    const calls = await listToolCalls(world.engine.db, view.id);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ member: 'writer', tool: 'other__shout', server: null, outcome: 'refused' });
    expect(http.seenHeaders().length).toBe(before);
  }, 60_000);

  it('refuses to start a run whose agent lists a tool server no admin registered, naming the member and field', async () => {
    const world = await governedWorld();
    const meshId = await saveOrThrow(world, mesh('tool', ['search']));
    const refused = await startRun(world.engine, { meshId, input: { payload: { text: 'hello mesh' } } }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(MeshInvalidError);
    expect((refused as MeshInvalidError).findings).toEqual([expect.objectContaining({ code: 'tool_missing', member: 'writer', field: 'tools[0]' })]);
    await putToolServer(world.engine.db, { name: 'search', config: shoutStdio });
    expect((await run(world, mesh('tool', ['search']))).status).toBe('done');
  }, 60_000);

  it('fails naming the secret when the store refuses it, and never starts the server', async () => {
    const world = await governedWorld();
    await putToolServer(world.engine.db, { name: 'text', config: { ...shoutStdio, secretEnv: { API_KEY: 'missing_secret' } } });
    const view = await run(world, mesh('tool', ['text']));
    expect(view.status).toBe('failed');
    expect(view.cause).toBe('agent_or_model_missing');
    expect(view.causeMessage).toMatch(/secret missing_secret/);
  }, 60_000);
});
