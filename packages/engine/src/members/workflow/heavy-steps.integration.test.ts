import { createServer, type IncomingMessage, type Server } from 'node:http';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpStepSchema } from '@trellis/mesh/schema';
import { allowInternal, PG_ADMIN_URL, saveOrThrow, storeSecret, useWorlds, type TestWorld, expectExactDone } from '../../../test/harness';
import { startFakeOpenAI, type FakeOpenAI } from '../agent/test/fake-openai';
import { MeshInvalidError, StepError } from '../../kernel/errors';
import { agentRunner } from '../../runtime/agent-runner';
import type { EngineOptions } from '../../kernel/engine';
import { listMessages } from '../../runs/list-messages';
import { startRun } from '../../runs/start-run';
import { waitForRun } from '../../runs/wait-run';
import { rows } from '../../kernel/sql';
import { runHttpStep } from './steps/http';
import { closeSqlPools } from './steps/sql';

const mesh = (steps: unknown[], extra: Record<string, unknown> = {}) => ({
  format: 'trellis.mesh/v1',
  name: 'heavy',
  members: [{ id: 'flow', kind: 'workflow', head: true, steps, ...extra }],
  channels: [],
});

let server: Server;
let port = 0;
const seen: { url: string; auth: string | undefined; body: string; key: string | undefined }[] = [];
let fake: FakeOpenAI;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let b = '';
    req.on('data', (c: Buffer) => (b += c.toString()));
    req.on('end', () => resolve(b));
  });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    void readBody(req).then((body) => {
      seen.push({ url: req.url ?? '', auth: req.headers.authorization, body, key: req.headers['idempotency-key'] as string | undefined });
      if (req.url?.startsWith('/slow')) return; // never answers
      if (req.url?.startsWith('/busy')) return void res.writeHead(429).end('slow down');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ path: req.url, ok: true }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
  fake = await startFakeOpenAI();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await fake.close();
  await closeSqlPools();
});

describe('heavy workflow steps on a worker pool (Postgres, Redis)', () => {
  const worlds = useWorlds();

  async function open(options: Pick<EngineOptions, 'runAgent' | 'security'> = {}): Promise<TestWorld> {
    const world = await worlds.open({ backoffMs: 50, ...options });
    worlds.start(world, { pools: ['default'] });
    return world;
  }

  async function run(w: TestWorld, definition: unknown, input: unknown) {
    const meshId = await saveOrThrow(w, definition);
    const { runId } = await startRun(w.engine, { meshId, input: { payload: input } });
    return waitForRun(w.engine.db, runId, { timeoutMs: 60_000 });
  }

  function testDbUrl(w: TestWorld): string {
    const u = new URL(PG_ADMIN_URL);
    u.pathname = `/${w.databaseName ?? ''}`;
    return u.toString();
  }

  it('runs a code step outside the commit transaction and maps a throw to step_code_failed', async () => {
    const w = await open();
    const ok = await run(w, mesh([{ type: 'map', fields: { n: 'n' } }, { type: 'code', source: 'return { doubled: payload.n * 2 }' }]), { n: 21 });
    await expectExactDone(w.engine.db, ok.id);
    expect(ok.output).toEqual({ doubled: 42 });
    // Claimed (`running`, started_at) in one transaction, completed in a later one: a light member
    // gets both stamps from the same transaction, so they would be equal.
    const [stamps] = await rows<{ heavy: boolean }>(
      w.engine.db,
      sql`select started_at < finished_at as heavy from messages where run_id = ${ok.id} and member = 'flow'`,
    );
    expect(stamps?.heavy).toBe(true);
    const bad = await run(w, mesh([{ type: 'code', source: 'throw new Error("claim number unreadable")' }]), { n: 1 });
    expect(bad.status).toBe('failed');
    expect(bad.cause).toBe('step_code_failed');
    const dead = await listMessages(w.engine.db, { runId: bad.id, status: 'dead' });
    expect(dead.items[0]?.error).toContain('claim number unreadable');
    const loop = await run(w, mesh([{ type: 'code', source: 'for (;;) {}', timeoutMs: 200 }]), {});
    expect(loop.cause).toBe('timed_out');
  });

  it('reads with a read-only SQL step, refuses its INSERT, and writes with a write step', async () => {
    // A named connection of the store (admin-managed), not an environment variable.
    const w = await open();
    await storeSecret(w, 'connection', 'CLAIMS_DB', testDbUrl(w));
    await w.handle.db.execute(sql`create table claims (id text primary key, amount int not null)`);
    const insert = 'insert into claims (id, amount) values ($1, $2) returning id';
    const refused = await run(w, mesh([{ type: 'sql', connection: 'CLAIMS_DB', query: insert, params: ['id', 'amount'] }]), { id: 'C-1', amount: 120 });
    expect(refused.status).toBe('failed');
    expect(refused.cause).toBe('step_code_failed');
    const dead = await listMessages(w.engine.db, { runId: refused.id, status: 'dead' });
    expect(dead.items[0]?.error).toContain('read-only');
    expect(await rows(w.handle.db, sql`select * from claims`)).toEqual([]);

    const written = await run(
      w,
      mesh([
        { type: 'sql', connection: 'CLAIMS_DB', query: insert, params: ['id', 'amount'], write: true, into: 'inserted' },
        { type: 'sql', connection: 'CLAIMS_DB', query: 'select id, amount from claims where id = $1', params: ['id'], into: 'found' },
      ]),
      { id: 'C-2', amount: 340 },
    );
    await expectExactDone(w.engine.db, written.id);
    expect(written.output).toEqual({ id: 'C-2', amount: 340, inserted: [{ id: 'C-2' }], found: [{ id: 'C-2', amount: 340 }] });
    expect(await rows(w.handle.db, sql`select id, amount from claims`)).toEqual([{ id: 'C-2', amount: 340 }]);

    const missing = await run(w, mesh([{ type: 'sql', connection: 'NOT_SET_DB', query: 'select 1' }]), {});
    expect(missing.cause).toBe('step_code_failed');
    await closeSqlPools(); // before the test database is dropped
  });

  it('calls an allowed host with a header from a secret, refuses others, and times out', async () => {
    const w = await open();
    await storeSecret(w, 'secret', 'CRM_TOKEN', 'Bearer s3cret', ['127.0.0.1']);
    await allowInternal(w, `127.0.0.1:${port}`);
    const before = seen.length;
    const ok = await run(
      w,
      mesh([
        {
          type: 'http',
          method: 'POST',
          url: `http://127.0.0.1:${port}/claims/{claim.id}?who={name}`,
          headers: { Authorization: { secret: 'CRM_TOKEN' } },
          body: 'claim',
          allowHosts: ['127.0.0.1'],
        },
      ]),
      { claim: { id: 'C 7/9' }, name: 'Ana & Bo' },
    );
    await expectExactDone(w.engine.db, ok.id);
    const got = seen[before];
    expect(got?.url).toBe('/claims/C%207%2F9?who=Ana%20%26%20Bo');
    expect(got?.auth).toBe('Bearer s3cret');
    expect(JSON.parse(got?.body ?? '{}')).toEqual({ id: 'C 7/9' });
    expect(ok.output).toMatchObject({ response: { ok: true, path: '/claims/C%207%2F9?who=Ana%20%26%20Bo' } });

    // The validator refuses to run a mesh whose URL is not on its list, naming the member and the field.
    const meshId = await saveOrThrow(w, mesh([{ type: 'http', url: `http://127.0.0.1:${port}/x`, allowHosts: ['api.example.com'] }]));
    const refusal = await startRun(w.engine, { meshId, input: { payload: {} } }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(MeshInvalidError);
    const finding = (refusal as MeshInvalidError).findings.find((f) => f.code === 'member_config_invalid');
    expect(finding).toMatchObject({ member: 'flow', field: 'steps[0].url' });
    // And the step itself refuses it, without a connection.
    const count = seen.length;
    const step = HttpStepSchema.parse({ type: 'http', url: `http://127.0.0.1:${port}/x`, allowHosts: ['api.example.com'] });
    const err = await runHttpStep('flow', step, {}, w.engine.guard).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StepError);
    expect((err as StepError).message).toContain('not in allowHosts');
    expect(seen.length).toBe(count);

    const slow = await run(w, mesh([{ type: 'http', url: `http://127.0.0.1:${port}/slow`, allowHosts: ['127.0.0.1'], timeoutMs: 200 }]), {});
    expect(slow.status).toBe('failed');
    expect(slow.cause).toBe('timed_out');
    const busy = await run(w, mesh([{ type: 'http', url: `http://127.0.0.1:${port}/busy`, allowHosts: ['127.0.0.1'] }]), {});
    expect(busy.cause).toBe('rate_limited');
    const noSecret = await run(
      w,
      mesh([{ type: 'http', url: `http://127.0.0.1:${port}/x`, headers: { 'X-Key': { secret: 'UNSET_SECRET' } }, allowHosts: ['127.0.0.1'] }]),
      {},
    );
    expect(noSecret.cause).toBe('step_code_failed');
  });

  it('hands every outside effect the delivery\'s idempotency key: HTTP header, SQL parameter, code context', async () => {
    const w = await open();
    await allowInternal(w, `127.0.0.1:${port}`);
    const meshId = await saveOrThrow(
      w,
      mesh([
        { type: 'http', method: 'POST', url: `http://127.0.0.1:${port}/keyed`, allowHosts: ['127.0.0.1'], into: 'first' },
        { type: 'sql', connection: 'trellis', query: 'select $1::text as key, $2::text as text', params: ['@idempotency_key', 'text'], into: 'sql' },
        { type: 'code', source: 'return { ...payload, code: context.idempotencyKey, message: context.messageId };' },
        { type: 'http', method: 'POST', url: `http://127.0.0.1:${port}/keyed-again`, allowHosts: ['127.0.0.1'], into: 'second' },
      ]),
    );
    const { runId, messageId } = await startRun(w.engine, { meshId, input: { payload: { text: 'hi' } } });
    const view = await waitForRun(w.engine.db, runId, { timeoutMs: 60_000 });
    await expectExactDone(w.engine.db, view.id);
    // The first effect carries the message id itself (the IETF Idempotency-Key draft's header); each later one its step.
    expect(seen.find((x) => x.url === '/keyed')?.key).toBe(messageId);
    expect(view.output).toMatchObject({ sql: [{ key: `${messageId}/1/0`, text: 'hi' }], code: `${messageId}/2/0`, message: messageId });
    expect(seen.find((x) => x.url === '/keyed-again')?.key).toBe(`${messageId}/3/0`);
  });

  it('runs an agent step against an OpenAI-compatible server and merges its answer', async () => {
    const w = await open({ runAgent: agentRunner() });
    await allowInternal(w, new URL(fake.baseUrl).host);
    const outputSchema = { type: 'object', properties: { kind: { type: 'string' }, confidence: { type: 'number' } }, required: ['kind', 'confidence'] };
    const view = await run(
      w,
      mesh([{ type: 'agent', model: 'structured', instructions: 'Classify the file.', provider: { baseUrl: fake.baseUrl }, outputSchema, output: 'merge' }]),
      { file: 'bill.pdf' },
    );
    await expectExactDone(w.engine.db, view.id);
    expect(view.output).toEqual({ file: 'bill.pdf', kind: 'invoice', confidence: 0.8 });
    const asked = fake.requests.find((r) => r.model === 'structured');
    expect(JSON.stringify(asked?.body.messages)).toContain('bill.pdf');
    const refused = await run(w, mesh([{ type: 'agent', model: 'refuse', provider: { baseUrl: fake.baseUrl } }]), { file: 'x' });
    expect(refused.cause).toBe('content_refused');
  });
});
