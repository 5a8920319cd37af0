import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { getRun } from '@trellis/engine/runs/get-run';
import { listAudit } from '@trellis/engine/audit/list-audit';
import { useWorlds } from '../../../engine/test/harness';
import { publishedWordSplit, serveBridges, tokenFor } from '../../test/support';

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

describe('MCP server surface', () => {
  const worlds = useWorlds();

  it('lists published meshes as tools, runs one and answers its output, and refuses bad calls with the shared error shape', async () => {
    const world = await worlds.open();
    const meshId = await publishedWordSplit(world);
    const runtime = worlds.start(world, { pools: ['default'], concurrency: 4 });
    const bridges = await serveBridges(world.engine);
    try {
      const token = await tokenFor(world.engine, 'designer');
      const client = await connect(bridges.url, token);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['trellis_run_status', 'word-split']);
      const tool = tools.find((t) => t.name === 'word-split');
      expect(tool?.inputSchema.properties).toHaveProperty('text');
      expect(tool?.description).toContain('Split pages');

      const call = await client.callTool({ name: 'word-split', arguments: { text: 'one two three', name: 'doc.txt' } });
      expect(call.isError).toBeFalsy();
      const answer = call.structuredContent as { runId: string; status: string; output: unknown; reused: boolean };
      expect(answer).toMatchObject({ status: 'done', ended: true, output: { text: 'one two three' }, reused: false });
      expect(await getRun(world.engine.db, answer.runId)).toMatchObject({ meshId, inputName: 'doc.txt', status: 'done' });

      // The same idempotency key is the same run.
      const keyed = { name: 'word-split', arguments: { text: 'keyed' }, _meta: { 'trellis/idempotency-key': 'k-1' } };
      const firstKeyed = (await client.callTool(keyed)).structuredContent as { runId: string; reused: boolean };
      const secondKeyed = (await client.callTool(keyed)).structuredContent as { runId: string; reused: boolean };
      expect(firstKeyed.reused).toBe(false);
      expect(secondKeyed).toMatchObject({ runId: firstKeyed.runId, reused: true });
      const reusedOther = await client.callTool({ ...keyed, arguments: { text: 'another request' } });
      expect(reusedOther.structuredContent).toMatchObject({ error: { code: 'idempotency_key_reused' } });

      const status = await client.callTool({ name: 'trellis_run_status', arguments: { runId: answer.runId } });
      expect(status.structuredContent).toMatchObject({ runId: answer.runId, status: 'done', output: { text: 'one two three' } });

      // Bad requests: the shared { error: { code, message } }, naming the field.
      const unknownField = await client.callTool({ name: 'word-split', arguments: { txt: 'x' } });
      expect(unknownField.isError).toBe(true);
      expect(unknownField.structuredContent).toEqual({ error: { code: 'bad_input', message: 'arguments: unknown field txt; expected text, payload or name' } });
      const both = await client.callTool({ name: 'word-split', arguments: { text: 'x', payload: { a: 1 } } });
      expect(both.structuredContent).toMatchObject({ error: { code: 'input_rejected' } });
      const unpublished = await client.callTool({ name: 'no-such-mesh', arguments: { text: 'x' } });
      expect(unpublished.structuredContent).toMatchObject({ error: { code: 'mesh_not_found' } });
      await client.close();

      // A viewer's token lists tools but may not start runs; no token is HTTP 401.
      const viewer = await connect(bridges.url, await tokenFor(world.engine, 'viewer'));
      const refused = await viewer.callTool({ name: 'word-split', arguments: { text: 'x' } });
      expect(refused.structuredContent).toMatchObject({ error: { code: 'forbidden' } });
      await viewer.close();
      // A plain JSON-RPC POST works without a session (the server is stateless), as the README's curl line does.
      const raw = await fetch(`${bridges.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'word-split', arguments: { text: 'by curl' } } }) });
      expect(((await raw.json()) as { result: { structuredContent: unknown } }).result.structuredContent).toMatchObject({ status: 'done', output: { text: 'by curl' } });
      // Every start is the shared use case's: a run.start audit entry naming the entry point.
      const audit = await listAudit(world.engine.db, { action: 'run.start' });
      expect(audit.find((e) => e.target === answer.runId)?.detail).toMatchObject({ entry: 'mcp', meshName: 'word-split' });
      const anonymous = await fetch(`${bridges.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
      expect(anonymous.status).toBe(401);
      expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    } finally {
      await bridges.close();
      await runtime.close();
    }
  }, 90_000);

  it('answers the run id when the run outlasts the wait, and the status tool waits for its end', async () => {
    const world = await worlds.open();
    await publishedWordSplit(world);
    const bridges = await serveBridges(world.engine, 0);
    let runtime: { close(): Promise<void> } | undefined;
    try {
      const client = await connect(bridges.url, await tokenFor(world.engine, 'operator'));
      // No worker yet: the run cannot end within the (zero) wait.
      const call = await client.callTool({ name: 'word-split', arguments: { text: 'later' } });
      const first = call.structuredContent as { runId: string; status: string; ended: boolean };
      expect(first).toMatchObject({ status: 'running', ended: false });
      expect(first).toMatchObject({ output: null, cause: null });
      runtime = worlds.start(world, { pools: ['default'], concurrency: 4 });
      const status = await client.callTool({ name: 'trellis_run_status', arguments: { runId: first.runId, waitSeconds: 20 } });
      expect(status.structuredContent).toMatchObject({ runId: first.runId, status: 'done', output: { text: 'later' } });
      await client.close();
    } finally {
      await bridges.close();
      await runtime?.close();
    }
  }, 90_000);
});
