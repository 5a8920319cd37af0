/**
 * A run's tool calls on its page, set up the way an admin would: the model server is allowed as an
 * internal host on the Egress page, the MCP tool server registered on the Tools page; the validator
 * names an unregistered tool by field; the run page lists the agent's call from the tool trail.
 * The model is a small OpenAI-compatible server in this spec: it asks for the first tool it is
 * offered, then answers with what the tool said.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { importMesh, startRun } from '../support/api';
import { signIn } from '../support/session';

const shoutServer = fileURLToPath(new URL('../../packages/engine/src/members/agent/test/shout-server.ts', import.meta.url));

function answer(message: Record<string, unknown>, finish: string): string {
  const choice = { index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, finish_reason: finish, logprobs: null };
  return JSON.stringify({ id: 'e2e', object: 'chat.completion', created: 0, model: 'tool', choices: [choice], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
}

async function startModel(): Promise<{ server: Server; host: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { tools?: { function: { name: string } }[]; messages: { role: string; content: unknown }[] };
      const result = body.messages.find((m) => m.role === 'tool');
      const text = result
        ? answer({ content: String(result.content) }, 'stop')
        : answer({ tool_calls: [{ id: 'call_1', type: 'function', function: { name: body.tools?.[0]?.function.name ?? 'none', arguments: '{"text":"hello tools"}' } }] }, 'tool_calls');
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, host: `127.0.0.1:${(server.address() as AddressInfo).port}` };
}

test('the run page lists the tool calls of a run; the validator names an unregistered tool', async ({ page }) => {
  const model = await startModel();
  const stamp = Date.now().toString(36);
  const tool = `shout-${stamp}`;
  const mesh = (tools: string[]) => ({
    format: 'trellis.mesh/v1',
    name: `tool-calls-${stamp}`,
    members: [{ id: 'writer', kind: 'agent', head: true, model: 'tool', tools, provider: { baseUrl: `http://${model.host}/v1` } }],
    channels: [],
  });
  try {
    await signIn(page, '/meshes');
    const check = await page.request.get(`/api/trpc/meshes.validate?input=${encodeURIComponent(JSON.stringify({ json: { definition: mesh([tool]) } }))}`);
    expect(await check.text()).toContain(`"code":"tool_missing","severity":"error","member":"writer","field":"tools[0]"`);

    await page.goto('/egress');
    await page.getByTestId('egress-allow-pattern').fill(model.host);
    await page.getByTestId('egress-allow-internal').check();
    await page.getByTestId('egress-allow').click();
    await expect(page.getByTestId(`egress-row-${model.host}`)).toContainText('yes');

    await page.goto('/tools');
    await page.getByTestId('tool-add-name').fill(tool);
    await page.getByTestId('tool-add-command').fill(process.execPath);
    await page.getByTestId('tool-add-args').fill(['--import', 'tsx', shoutServer].join('\n'));
    await page.getByTestId('tool-add').click();
    await expect(page.getByTestId(`tool-row-${tool}`)).toBeVisible();

    const meshId = await importMesh(page, mesh([tool]));
    const runId = await startRun(page, meshId, 'a document');
    await page.goto(`/runs/${runId}`);
    await expect(page.getByTestId('run-view')).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
    const calls = page.getByTestId('run-tool-calls');
    await expect(calls).toContainText(`${tool}__shout`);
    await expect(calls).toContainText('writer');
    await expect(calls.getByTestId('run-tool-call-outcome')).toHaveText('ok');
  } finally {
    // Later specs share this server: leave the egress policy as it was.
    await page.request.post('/api/trpc/egress.remove', { data: { json: { pattern: model.host } } });
    model.server.close();
  }
});
