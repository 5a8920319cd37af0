// The assistant against real Postgres: seeded failures, questions, and every number in each answer
// checked against the database; re-open only after an explicit yes; a model doing tool calls
// through a local OpenAI-compatible server this test starts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { saveOrThrow, useWorlds, WORD_SPLIT, type TestWorld } from '../../test/harness';
import { saveMesh } from '../meshes/save-mesh';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { rows } from '../kernel/sql';
import { ask } from './ask';

let server: Server | undefined;
// Registered before the worlds' hook, so it runs after it.
afterEach(async () => {
  if (server) await new Promise((r) => server?.close(r));
  server = undefined;
});
const worlds = useWorlds();

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ISO = /\d{4}-\d\d-\d\dT[\d:.]+Z/g;

/** The numbers a person reads in an answer (run ids and timestamps are names, not figures). */
function numbersIn(answer: string): number[] {
  return (answer.replace(UUID, '').replace(ISO, '').replace(/\(UTC\)/g, '').match(/\d+/g) ?? []).map(Number);
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

/** Seeds runs, messages and approvals by hand: three meshes' worth of failures today, one older. */
async function seed(w: TestWorld): Promise<void> {
  const run = (id: string, mesh: string, status: string, cause: string | null, member: string | null, age = '0 seconds') =>
    sql`insert into runs (id, mesh_id, mesh_name, mesh_version, status, cause, cause_member, cause_message, input, started_at, ended_at, moved_at)
        values (${id}, ${`m-${mesh}`}, ${mesh}, 1, ${status}, ${cause}, ${member}, ${cause ? `The step at ${member ?? 'the mesh'} went wrong.` : null}, '{}'::jsonb,
                now() - ${age}::interval, case when ${status} in ('failed', 'done') then now() - ${age}::interval end, now() - ${age}::interval)`;
  const ids = (n: number, p: string) => Array.from({ length: n }, (_, i) => `0000000${i}-0000-7000-8000-${p.padStart(12, '0')}`);
  for (const id of ids(3, 'a1')) await w.engine.db.execute(run(id, 'claims', 'failed', 'step_code_failed', 'classify'));
  for (const id of ids(1, 'a2')) await w.engine.db.execute(run(id, 'claims', 'failed', 'timed_out', 'records'));
  for (const id of ids(2, 'b1')) await w.engine.db.execute(run(id, 'word-split', 'failed', 'message_lost', 'words'));
  for (const id of ids(2, 'c1')) await w.engine.db.execute(run(id, 'invoices', 'stalled', 'stalled', null));
  for (const id of ids(4, 'd1')) await w.engine.db.execute(run(id, 'claims', 'failed', 'rate_limited', 'classify', '3 days'));
  for (const id of ids(5, 'e1')) await w.engine.db.execute(run(id, 'claims', 'done', null, null));
  const msg = (id: string, runId: string, member: string, status: string, error: string | null) =>
    sql`insert into messages (id, run_id, member, payload, status, attempts, error, finished_at)
        values (${id.padEnd(64, '0')}, ${runId}, ${member}, '{}'::jsonb, ${status}, 3, ${error}, now())`;
  const [claimsRun] = ids(3, 'a1');
  await w.engine.db.execute(msg('aa01', claimsRun ?? '', 'classify', 'dead', 'the model answered with text that is not JSON'));
  await w.engine.db.execute(msg('aa02', claimsRun ?? '', 'classify', 'dead', 'the model answered with text that is not JSON'));
  await w.engine.db.execute(msg('aa03', claimsRun ?? '', 'intake', 'done', null));
  const [ws1, ws2] = ids(2, 'b1');
  await w.engine.db.execute(msg('bb01', ws1 ?? '', 'words', 'lost', 'its job kept disappearing from the queue'));
  await w.engine.db.execute(msg('bb02', ws1 ?? '', 'words', 'lost', 'its job kept disappearing from the queue'));
  await w.engine.db.execute(msg('bb03', ws2 ?? '', 'words', 'lost', 'its job kept disappearing from the queue'));
  await w.engine.db.execute(msg('cc01', ids(2, 'c1')[0] ?? '', 'fetch', 'pending', null));
  const approval = (id: string, status: string) =>
    sql`insert into approvals (id, run_id, mesh_id, mesh_name, member, children, status) values (${id}, ${claimsRun ?? ''}, 'm-claims', 'claims', 'review', '[]'::jsonb, ${status})`;
  await w.engine.db.execute(approval('ap1', 'pending'));
  await w.engine.db.execute(approval('ap2', 'pending'));
  await w.engine.db.execute(approval('ap3', 'approved'));
}

const TODAY = sql`date_trunc('day', now() at time zone 'UTC') at time zone 'UTC'`;

describe('the assistant without a model (intent matcher)', () => {
  it('answers what broke today, why a run failed, stalled, lost and approvals with numbers from the database', async () => {
    const world = await worlds.open();
    await seed(world);
    const db = world.engine.db;

    const broke = await ask(world.engine, { question: 'What broke today?', userId: 'u1' });
    expect(broke).toMatchObject({ via: 'matcher', intent: 'failures' });
    const groups = await rows<{ mesh_name: string; cause: string; n: number }>(
      db,
      sql`select mesh_name, coalesce(cause, status) as cause, count(*)::int as n from runs
           where status in ('failed', 'stalled') and coalesce(ended_at, moved_at) >= ${TODAY}
           group by 1, 2`,
    );
    const total = groups.reduce((n, g) => n + g.n, 0);
    const meshes = new Set(groups.map((g) => g.mesh_name)).size;
    expect(total).toBe(8);
    expect(broke.answer.split('\n')[0]).toBe(`${total} runs failed or stalled today (UTC), in ${meshes} meshes:`);
    for (const g of groups) expect(broke.answer).toContain(`- ${g.mesh_name}: ${g.n} run${g.n === 1 ? '' : 's'} ${g.cause}`);
    expect(sorted(numbersIn(broke.answer))).toEqual(sorted([total, meshes, ...groups.map((g) => g.n)]));

    const week = await ask(world.engine, { question: 'which meshes failed this week and why?', userId: 'u1' });
    const [weekTotal] = await rows<{ n: number }>(db, sql`select count(*)::int as n from runs where status in ('failed', 'stalled')`);
    expect(week.answer.split('\n')[0]).toContain(`${weekTotal?.n} runs failed or stalled in the last 7 days`);

    const runId = '00000000-0000-7000-8000-0000000000a1';
    const why = await ask(world.engine, { question: `Why did run ${runId} fail?`, userId: 'u1' });
    const [counts] = await rows<{ dead: number; lost: number; attempts: number }>(
      db,
      sql`select count(*) filter (where status = 'dead')::int as dead, count(*) filter (where status = 'lost')::int as lost,
                 max(attempts)::int as attempts from messages where run_id = ${runId}`,
    );
    expect(why.answer).toContain(`Run ${runId} (claims v1) failed with cause step_code_failed at member classify.`);
    expect(why.answer).toContain(`It has ${counts?.dead} dead-lettered messages and ${counts?.lost} lost messages.`);
    // Numbers: the version (1), dead, lost, and each broken message's attempts.
    expect(sorted(numbersIn(why.answer))).toEqual(sorted([1, counts?.dead ?? -1, counts?.lost ?? -1, counts?.attempts ?? -1, counts?.attempts ?? -1]));

    const stalled = await ask(world.engine, { question: 'Is anything stuck?', userId: 'u1' });
    const open = await rows<{ id: string; n: number }>(
      db,
      sql`select r.id, (select count(*)::int from messages m where m.run_id = r.id and m.status in ('pending','running','parked')) as n
            from runs r where r.status = 'stalled'`,
    );
    expect(stalled.answer.split('\n')[0]).toBe(`${open.length} runs are stalled:`);
    for (const r of open) expect(stalled.answer).toContain(`- ${r.id} (invoices): quiet since`);
    expect(sorted(numbersIn(stalled.answer))).toEqual(sorted([open.length, ...open.map((r) => r.n)]));

    const lost = await ask(world.engine, { question: 'Were any messages lost?', userId: 'u1' });
    const [l] = await rows<{ messages: number; runs: number }>(
      db,
      sql`select count(*)::int as messages, count(distinct run_id)::int as runs from messages where status = 'lost'`,
    );
    expect(lost.answer).toBe(`${l?.messages} messages were lost today (UTC):\n- word-split at words: ${l?.messages} messages in ${l?.runs} runs`);

    const approvals = await ask(world.engine, { question: 'What is waiting for approval?', userId: 'u1' });
    const [a] = await rows<{ n: number }>(db, sql`select count(*)::int as n from approvals where status = 'pending'`);
    expect(approvals.answer.split('\n')[0]).toBe(`${a?.n} approval requests are waiting:`);
    expect(approvals.answer).toContain(`- claims at review: ${a?.n} requests`);
    expect(sorted(numbersIn(approvals.answer))).toEqual([a?.n ?? -1, a?.n ?? -1]);

    expect((await ask(world.engine, { question: 'hello there', userId: 'u1' })).intent).toBe('help');
  });

  it('finds a run by a shortened id (prefix, or prefix…suffix as run lists show it) and asks back when several match', async () => {
    const world = await worlds.open();
    await seed(world);
    const runId = '00000000-0000-7000-8000-0000000000a1';
    const short = await ask(world.engine, { question: 'why did run 00000000…00a1 fail?', userId: 'u1' });
    expect(short.intent).toBe('why');
    expect(short.answer).toContain(`Run ${runId} (claims v1) failed with cause step_code_failed at member classify.`);
    const dots = await ask(world.engine, { question: 'what went wrong with 00000000...00a1', userId: 'u1' });
    expect(dots.answer).toBe(short.answer);
    const prefix = await ask(world.engine, { question: 'why did run 00000004 fail?', userId: 'u1' });
    expect(prefix.answer).toBe('Run 00000004-0000-7000-8000-0000000000e1 (claims v1) did not fail: it is done.');

    // 00000003 starts two runs (d1 and e1): both are named, nothing is guessed.
    const two = await ask(world.engine, { question: 'why did run 00000003 fail?', userId: 'u1' });
    const matching = await rows<{ id: string }>(world.engine.db, sql`select id from runs where id like '00000003%'`);
    expect(matching).toHaveLength(2);
    expect(two.intent).toBe('why');
    expect(two.answer.split('\n')[0]).toBe('2 runs match 00000003; which one do you mean? Give more of its id:');
    for (const r of matching) expect(two.answer).toContain(`- ${r.id} (claims, `);
    const many = await ask(world.engine, { question: 'why did run 000000 fail?', userId: 'u1' });
    expect(many.answer.split('\n')[0]).toBe('More than 5 runs match 000000; which one do you mean? Give more of its id:');
    const none = await ask(world.engine, { question: 'why did run 0abcdef1 fail?', userId: 'u1' });
    expect(none.answer).toBe('No run id starts with 0abcdef1. Which run do you mean?');
  });
});

const base = JSON.parse(WORD_SPLIT) as { members: Record<string, unknown>[] } & Record<string, unknown>;
const withWords = (field: string) => ({
  ...base,
  members: base.members.map((m) => (m.id === 'words' ? { ...m, steps: [{ type: 'split', by: 'word', field }] } : m)),
});

async function failedRun(w: TestWorld): Promise<{ meshId: string; runId: string }> {
  const meshId = await saveOrThrow(w, withWords('nope'));
  worlds.start(w, { pools: ['default'] });
  const { runId } = await startRun(w.engine, { meshId, input: { text: 'one two\nthree' } });
  expect((await waitForRun(w.engine.db, runId, { timeoutMs: 30_000 })).status).toBe('failed');
  const saved = await saveMesh(w.engine.db, { meshId, definition: withWords('text'), baseVersion: 1 });
  expect(saved.ok).toBe(true);
  return { meshId, runId };
}

async function statusOf(w: TestWorld, runId: string): Promise<string | undefined> {
  return (await rows<{ status: string }>(w.engine.db, sql`select status from runs where id = ${runId}`))[0]?.status;
}

describe('re-open through the assistant', () => {
  it('states exactly what it will do and re-opens only on an explicit yes with the matching token', async () => {
    const world = await worlds.open({ attempts: 1 });
    const { runId } = await failedRun(world);
    const engine = world.engine;

    const asked = await ask(engine, { question: 'Re-open the failed runs of mesh word-split on the latest version', userId: 'u1' });
    expect(asked.answer.split('\n')[0]).toBe('Re-open 1 run from member words on the latest saved version (v2).');
    expect(asked.proposal).toMatchObject({ runIds: [runId], version: 'latest' });
    const token = asked.proposal?.token ?? '';
    await new Promise((r) => setTimeout(r, 300));
    expect(await statusOf(world, runId)).toBe('failed');

    // Anything but an explicit yes, a forged token, or someone else's "yes" does nothing.
    expect((await ask(engine, { question: 'hmm, maybe', confirmToken: token, userId: 'u1' })).intent).toBe('help');
    expect((await ask(engine, { question: 'yes', userId: 'u1' })).answer).toMatch(/nothing waiting for a yes/);
    const forged = `${token.split('.')[0] ?? ''}x.${token.split('.')[1] ?? ''}`;
    expect((await ask(engine, { question: 'yes', confirmToken: forged, userId: 'u1' })).answer).toMatch(/^Nothing was done/);
    expect((await ask(engine, { question: 'yes', confirmToken: token, userId: 'u2' })).answer).toMatch(/someone else/);
    expect(await statusOf(world, runId)).toBe('failed');
    const no = await ask(engine, { question: 'No', confirmToken: token, userId: 'u1' });
    expect(no).toMatchObject({ intent: 'cancel', answer: 'Cancelled, nothing was re-opened.' });
    expect(await statusOf(world, runId)).toBe('failed');

    // The run named by the shortened id run lists show gets the same proposal.
    const byShort = await ask(engine, { question: `re-open run ${runId.slice(0, 8)}…${runId.slice(-4)} on the latest version`, userId: 'u1' });
    expect(byShort.proposal).toMatchObject({ runIds: [runId], version: 'latest' });

    const yes = await ask(engine, { question: 'Yes', confirmToken: token, userId: 'u1' });
    expect(yes.answer).toBe(`Re-opened 1 run: ${runId} (attempt 2, v2).`);
    const view = await waitForRun(engine.db, runId, { timeoutMs: 30_000 });
    expect(view.status).toBe('done');
    expect((view.output as { text: string }).text).toBe('one two\nthree');
  });
});

describe('the assistant with a model (tool calls)', () => {
  it('lets the model call the query tools and propose a re-open; the figures come from the tools', async () => {
    const world = await worlds.open({ attempts: 1 });
    const { runId } = await failedRun(world);
    const seen: { tools: string[]; toolResults: unknown[] }[] = [];
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: { role: string; content: string }[]; tools: { function: { name: string } }[] };
        const results = body.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content) as unknown);
        seen.push({ tools: body.tools.map((t) => t.function.name), toolResults: results });
        const question = body.messages.find((m) => m.role === 'user')?.content ?? '';
        const reopen = /re-?open/i.test(question);
        let message: Record<string, unknown>;
        if (results.length === 0) {
          const call = reopen
            ? { name: 'propose_reopen', arguments: JSON.stringify({ meshName: 'word-split', version: 'latest' }) }
            : { name: 'failures', arguments: '{"window":"today"}' };
          message = { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: call }] };
        } else {
          const groups = results[0] as { meshName: string; runs: number; cause: string }[];
          message = { role: 'assistant', content: reopen ? 'I can do that.' : groups.map((g) => `${g.meshName} failed ${g.runs} times (${g.cause}).`).join(' ') };
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({ id: 'x', object: 'chat.completion', created: 0, model: 'ops', choices: [{ index: 0, message, finish_reason: 'stop', logprobs: null }] }),
        );
      });
    });
    await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const model = { model: 'ops', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: undefined };

    const reply = await ask(world.engine, { question: 'What broke today?', userId: 'u1' }, model);
    expect(reply).toMatchObject({ via: 'model', intent: 'failures' });
    expect(seen[0]?.tools).toEqual(['failures', 'why_run_failed', 'stalled_runs', 'lost_messages', 'approvals_waiting', 'propose_reopen']);
    const [n] = await rows<{ n: number }>(world.engine.db, sql`select count(*)::int as n from runs where status = 'failed' and cause = 'step_code_failed'`);
    expect(reply.answer).toBe(`word-split failed ${n?.n} times (step_code_failed).`);

    const proposal = await ask(world.engine, { question: 'Please re-open them on the latest version', userId: 'u1' }, model);
    expect(proposal.answer).toContain('Re-open 1 run from member words on the latest saved version (v2).');
    expect(proposal.proposal?.runIds).toEqual([runId]);
    expect(await statusOf(world, runId)).toBe('failed');
    // A model that cannot be reached: the matcher answers, and says so.
    const down = await ask(world.engine, { question: 'What broke today?', userId: 'u1' }, { model: 'ops', baseUrl: 'http://127.0.0.1:1/v1', apiKey: undefined });
    expect(down.via).toBe('matcher');
    expect(down.answer).toMatch(/^\(The assistant model ops could not answer: .+\. Answered with the built-in matcher\.\)\n1 run failed or stalled today/);

    const yes = await ask(world.engine, { question: 'yes', confirmToken: proposal.proposal?.token ?? '', userId: 'u1' }, model);
    expect(yes.answer).toContain('Re-opened 1 run');
    expect((await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 })).status).toBe('done');
  });
});
