import { describe, expect, it } from 'vitest';
import { Role, TaskState, type Message, type SendMessageRequest, type Task } from '@a2a-js/sdk';
import { Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { getRun } from '@trellis/engine/runs/get-run';
import { saveOrThrow, useWorlds, WORD_SPLIT } from '../../../engine/test/harness';
import { startEntryRun } from '@trellis/engine/runs/start-entry-run';
import { SYSTEM_ACTOR } from '@trellis/engine/audit/append';
import { publishedWordSplit, serveBridges, tokenFor } from '../../test/support';

/** fetch with the token, recording each JSON-RPC method sent. */
function authedFetch(token: string, methods: string[]): typeof fetch {
  return (input, init) => {
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
    if (body?.method) methods.push(body.method);
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

function userMessage(messageId: string, text: string): SendMessageRequest {
  const message: Message = {
    messageId,
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

describe('A2A agents', () => {
  const worlds = useWorlds();

  it('serves an agent card per published mesh and maps message/send and tasks/get to runs, on A2A 1.0 and 0.3', async () => {
    const world = await worlds.open();
    const meshId = await publishedWordSplit(world);
    const runtime = worlds.start(world, { pools: ['default'], concurrency: 4 });
    const bridges = await serveBridges(world.engine);
    try {
      const token = await tokenFor(world.engine, 'designer');
      const methods: string[] = [];
      const fetchImpl = authedFetch(token, methods);
      const agentUrl = `${bridges.url}/a2a/word-split`;
      const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
      const client = await factory.createFromUrl(`${agentUrl}/`);
      const card = await client.getAgentCard();
      expect(card.name).toBe('word-split');
      expect(card.skills.map((s) => s.id)).toEqual(['word-split']);
      expect(card.supportedInterfaces.map((i) => i.protocolVersion).sort()).toEqual(['0.3', '1.0']);

      const sent = (await client.sendMessage(userMessage('m-1', 'one two three'))) as Task;
      expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(sent.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'data', value: { text: 'one two three' } });
      expect(await getRun(world.engine.db, sent.id)).toMatchObject({ meshId, status: 'done' });
      const again = (await client.sendMessage(userMessage('m-1', 'one two three'))) as Task;
      const got = await client.getTask({ tenant: '', id: sent.id });
      expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(methods).toEqual(['SendMessage', 'SendMessage', 'GetTask']);

      // The same agent over A2A 0.3's wire: message/send, tasks/get.
      const legacy = new Client(new LegacyJsonRpcTransport({ endpoint: agentUrl, fetchImpl }), card);
      const old = (await legacy.sendMessage(userMessage('m-2', 'old wire'))) as Task;
      expect(old.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(old.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'data', value: { text: 'old wire' } });
      expect((await legacy.getTask({ tenant: '', id: old.id })).id).toBe(old.id);
      expect(methods.slice(3)).toEqual(['message/send', 'tasks/get']);
      // The same messageId is the same run (idempotency).
      expect(again.id).toBe(sent.id);

      // Refusals: JSON-RPC errors carrying the engine's code.
      const empty = userMessage('m-3', '');
      empty.message = { ...(empty.message as Message), parts: [] };
      await expect(client.sendMessage(empty)).rejects.toThrow(/message\.parts: expected a text, data or raw part/);
      const raw = await fetchImpl(agentUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '0.3' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'message/send', params: { message: { kind: 'message', messageId: 'm-4', role: 'user', parts: [] } } }) });
      const rawBody = (await raw.json()) as { id: number; error: { code: number; message: string } };
      expect(rawBody.id).toBe(7);
      expect(rawBody.error.message).toContain('message.parts: expected a text, data or raw part');
      await expect(client.getTask({ tenant: '', id: 'no-such-run' })).rejects.toThrow(/no-such-run/);
      // A run of another mesh is not this agent's task.
      const otherId = await saveOrThrow(world, { ...(JSON.parse(WORD_SPLIT) as object), name: 'other-mesh' });
      const other = await startEntryRun(world.engine, { mesh: { id: otherId }, input: { text: 'elsewhere' }, entry: 'rest', actor: SYSTEM_ACTOR });
      await expect(client.getTask({ tenant: '', id: other.runId })).rejects.toThrow(new RegExp(other.runId));

      // No token: refused by name.
      const anonymous = new Client(new LegacyJsonRpcTransport({ endpoint: agentUrl }), card);
      await expect(anonymous.sendMessage(userMessage('m-5', 'x'))).rejects.toThrow(/needs an API token/);
      const unpublished = await fetch(`${bridges.url}/a2a/other/.well-known/agent-card.json`);
      expect(unpublished.status).toBe(404);
      expect(((await unpublished.json()) as { error: { code: string } }).error.code).toBe('mesh_not_found');
    } finally {
      await bridges.close();
      await runtime.close();
    }
  }, 90_000);

  it('answers a working task at once when asked, and tasks/cancel cancels its run', async () => {
    const world = await worlds.open();
    await publishedWordSplit(world);
    const bridges = await serveBridges(world.engine);
    try {
      const fetchImpl = authedFetch(await tokenFor(world.engine, 'admin'), []);
      const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
      const client = await factory.createFromUrl(`${bridges.url}/a2a/word-split/`);
      const request = userMessage('c-1', 'never runs');
      request.configuration = { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true };
      // No worker runs: the task stays working until cancelled.
      const task = (await client.sendMessage(request)) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
      const cancelled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect(await getRun(world.engine.db, task.id)).toMatchObject({ status: 'cancelled' });
      await expect(client.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toThrow(/already ended/);
    } finally {
      await bridges.close();
    }
  }, 90_000);
});
