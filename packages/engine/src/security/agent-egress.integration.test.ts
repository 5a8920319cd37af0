/**
 * Attacker trial: an agent whose provider `baseUrl` the egress policy refuses showed only
 * "Connection error." and was tried again and again. A refusal is final: one call, no retry of
 * the model request or of the message, and the run's sentence names the egress policy and the host.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentRunner } from '../kernel/engine';
import { agentRunner } from '../runtime/agent-runner';
import { listMessages } from '../runs/list-messages';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { saveOrThrow, useWorlds } from '../../test/harness';
import { startListener, type Listener } from './listener';

describe('an agent provider the egress policy refuses', () => {
  const worlds = useWorlds();
  let provider: Listener;
  let fetches = 0;
  /** The real runner, counting the requests it sends through the guard. */
  const counting: AgentRunner = (member, payload, signal, context) => {
    const guard = context?.guard;
    const counted = guard ? { ...guard, fetch: (input: string | URL | Request, init?: RequestInit) => (fetches++, guard.fetch(input, init)) } : undefined;
    return agentRunner()(member, payload, signal, { ...context, ...(counted ? { guard: counted } : {}) });
  };

  beforeEach(async () => {
    provider = await startListener();
    fetches = 0;
  });
  afterEach(async () => {
    await provider.close();
  });

  it.each([
    ['an agent member', { id: 'ask', kind: 'agent', head: true, model: 'gpt-4o-mini' }],
    ['an agent step', { id: 'ask', kind: 'workflow', head: true, steps: [{ type: 'agent', model: 'gpt-4o-mini' }] }],
  ])('fails %s at once, naming the policy and the host', async (_, shape) => {
    const w = await worlds.open({ backoffMs: 50, attempts: 3, runAgent: counting });
    worlds.start(w, { pools: ['default'] });
    const withProvider = 'steps' in shape ? { ...shape, steps: [{ ...shape.steps[0], provider: { baseUrl: `${provider.url}/v1` } }] } : { ...shape, provider: { baseUrl: `${provider.url}/v1` } };
    const meshId = await saveOrThrow(w, { format: 'trellis.mesh/v1', name: 'refused-provider', members: [withProvider], channels: [] });
    const { runId } = await startRun(w.engine, { meshId, input: { payload: { q: 'hi' } } });
    const view = await waitForRun(w.engine.db, runId, { timeoutMs: 60_000 });

    expect(view.status).toBe('failed');
    expect(view.causeMessage).toContain('refused by the egress policy');
    expect(view.causeMessage).toContain(provider.host);
    expect(view.causeMessage).not.toContain('Connection error');
    const dead = await listMessages(w.engine.db, { runId, status: 'dead' });
    expect(dead.items[0]?.attempts).toBe(1);
    expect(fetches).toBe(1);
    expect(provider.heard).toEqual([]);
  }, 60_000);
});
