/**
 * Takeover 4 of issue 11: `allowHosts` lists were mesh data, so a member reached Trellis's own API
 * on 127.0.0.1. Now egress is an admin policy, and loopback, private, link-local and metadata
 * addresses are refused after DNS resolution and on every redirect hop, for HTTP steps, agent
 * providers, MCP HTTP tool servers and code-step fetch, unless an admin allows that exact host
 * (docs/security.md).
 */
import { lookup as dnsLookup } from 'node:dns';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { allowInternal, saveOrThrow, useWorlds, type TestWorld } from '../../test/harness';
import type { AgentRunner } from '../kernel/engine';
import { startFakeOpenAI } from '../members/agent/test/fake-openai';
import { allowEgress, type EgressPolicy } from '../policy/egress';
import { putToolServer } from '../tools/registry';
import { agentRunner } from '../runtime/agent-runner';
import { listMessages } from '../runs/list-messages';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { startListener, type Listener } from './listener';

const flow = (steps: unknown[]) => ({ format: 'trellis.mesh/v1', name: 'egress', members: [{ id: 'flow', kind: 'workflow', head: true, steps }], channels: [] });

/** A resolver where the attacker's name points at loopback (an attacker-run DNS zone does the same). */
const lookup: NonNullable<EgressPolicy['lookup']> = (host, cb) => {
  if (host === 'api.attacker.test') return cb(null, [{ address: '127.0.0.1', family: 4 }]);
  dnsLookup(host, { all: true }, (err, addresses) => cb(err, addresses));
};

describe('takeover 4: egress written by the author', () => {
  const worlds = useWorlds();
  /** Stands in for Trellis's own API (or any local listener). */
  let inside: Listener;
  /** The attacker's host, which an admin has allowed. */
  let outside: Listener;
  let w: TestWorld;

  beforeEach(async () => {
    inside = await startListener();
    outside = await startListener();
    w = await worlds.open({ backoffMs: 50, attempts: 1, runAgent: agentRunner(), security: { lookup } });
    worlds.start(w, { pools: ['default'] });
  });
  afterEach(async () => {
    await inside.close();
    await outside.close();
  });

  async function run(definition: unknown, world = w) {
    const meshId = await saveOrThrow(world, definition);
    const { runId } = await startRun(world.engine, { meshId, input: { payload: {} } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 60_000 });
    const dead = await listMessages(world.engine.db, { runId, status: 'dead' });
    return { status: view.status, error: dead.items[0]?.error ?? '' };
  }

  it('refuses an HTTP step to loopback though the mesh lists it, and to the metadata address', async () => {
    const direct = await run(flow([{ type: 'http', url: `${inside.url}/api/trpc/users.list`, allowHosts: ['127.0.0.1'] }]));
    expect(direct.status).toBe('failed');
    expect(direct.error).toContain(`refused by the egress policy: ${inside.host} is a loopback address`);
    const metadata = await run(flow([{ type: 'http', url: 'http://169.254.169.254/latest/meta-data/', allowHosts: ['169.254.169.254'] }]));
    expect(metadata.error).toContain('169.254.169.254 is a link-local (cloud metadata) address');
    expect(inside.heard).toEqual([]);
  });

  it('refuses a name that resolves to loopback, checked after DNS resolution', async () => {
    const port = new URL(inside.url).port;
    const named = await run(flow([{ type: 'http', url: `http://api.attacker.test:${port}/x`, allowHosts: ['api.attacker.test'] }]));
    expect(named.error).toContain(`refused by the egress policy: api.attacker.test:${port} resolves to 127.0.0.1, a loopback address`);
    const localhost = await run(flow([{ type: 'http', url: `http://localhost:${port}/x`, allowHosts: ['localhost'] }]));
    expect(localhost.error).toMatch(/resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(inside.heard).toEqual([]);
  });

  it('refuses a redirect to loopback from an allowed host: agent provider and code fetch', async () => {
    await allowInternal(w, outside.host);
    outside.redirect('/r/', `${inside.url}/steal`);
    const agent = await run({
      format: 'trellis.mesh/v1',
      name: 'egress-agent',
      members: [{ id: 'ask', kind: 'agent', head: true, model: 'gpt-4o-mini', provider: { baseUrl: `${outside.url}/r/v1` } }],
      channels: [],
    });
    expect(agent.status).toBe('failed');
    expect(agent.error).toContain(`refused by the egress policy: ${inside.host} is not on the install's allowed hosts`);
    const code = await run(flow([{ type: 'code', network: ['127.0.0.1'], source: `return await (await fetch(${JSON.stringify(`${outside.url}/redirect?to=${inside.url}/steal`)})).json();` }]));
    expect(code.error).toContain(`refused by the egress policy: ${inside.host} is not on the install's allowed hosts`);
    // The admin's rule list now replaces the default: the allowed host is reached, loopback never.
    expect(outside.heard.length).toBeGreaterThanOrEqual(2);
    expect(inside.heard).toEqual([]);
  });

  it('refuses an MCP HTTP tool server and a code step fetch on loopback, though every public host is allowed', async () => {
    const fake = await startFakeOpenAI();
    try {
      // Tools come from the registry in this world, as in production.
      const late: { runner?: AgentRunner } = {};
      const governed = await worlds.open({ backoffMs: 50, attempts: 1, runAgent: (m, p, s, c) => (late.runner as AgentRunner)(m, p, s, c) });
      late.runner = agentRunner(undefined, { db: governed.engine.db });
      worlds.start(governed, { pools: ['default'] });
      await allowEgress(governed.engine.db, { pattern: '*', by: 'test' });
      await allowInternal(governed, new URL(fake.baseUrl).host);
      await putToolServer(governed.engine.db, { name: 'inside', config: { transport: 'http', url: `${inside.url}/mcp` } });
      const tool = await run(
        { format: 'trellis.mesh/v1', name: 'egress-tool', members: [{ id: 'ask', kind: 'agent', head: true, model: 'tool', tools: ['inside'], provider: { baseUrl: fake.baseUrl } }], channels: [] },
        governed,
      );
      expect(tool.status).toBe('failed');
      expect(tool.error).toContain(`refused by the egress policy: ${inside.host} is a loopback address`);
      const code = await run(flow([{ type: 'code', network: ['127.0.0.1'], source: `return await (await fetch(${JSON.stringify(`${inside.url}/steal`)})).json();` }]), governed);
      expect(code.error).toContain(`refused by the egress policy: ${inside.host} is a loopback address`);
      expect(inside.heard).toEqual([]);
    } finally {
      await fake.close();
    }
  });

  it('lets an admin allow one exact internal host, and only that one', async () => {
    await allowInternal(w, inside.host);
    const allowed = await run(flow([{ type: 'http', url: `${inside.url}/ok`, allowHosts: ['127.0.0.1'] }]));
    expect(allowed.status).toBe('done');
    const other = await run(flow([{ type: 'http', url: `${outside.url}/ok`, allowHosts: ['127.0.0.1'] }]));
    expect(other.error).toContain(`${outside.host} is not on the install's allowed hosts (${inside.host})`);
    expect(outside.heard).toEqual([]);
  });
});
