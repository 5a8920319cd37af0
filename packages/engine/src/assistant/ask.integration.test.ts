// The assistant against real Postgres: seeded failures, questions, and every number in each answer
// checked against the database; re-open only after an explicit yes; a model doing tool calls
// through a local OpenAI-compatible server this test starts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { saveOrThrow, useWorlds, WORD_SPLIT, type TestWorld, expectExactDone } from '../../test/harness';
import { saveMesh } from '../meshes/save-mesh';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { rows } from '../kernel/sql';
import { cancelRun } from '../runs/cancel-run';
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

/** One group of seeded runs: `n` runs of `mesh` with this status and cause, ended `daysAgo` days ago. */
interface SeededRuns {
  tag: string;
  mesh: string;
  status: 'failed' | 'stalled' | 'done';
  cause: string | null;
  member: string | null;
  n: number;
  daysAgo: number;
}

/** The seeded facts, from which every expected figure below is computed (never from SQL). */
const RUNS: readonly SeededRuns[] = [
  { tag: 'a1', mesh: 'claims', status: 'failed', cause: 'step_code_failed', member: 'classify', n: 3, daysAgo: 0 },
  { tag: 'a2', mesh: 'claims', status: 'failed', cause: 'timed_out', member: 'records', n: 1, daysAgo: 0 },
  { tag: 'b1', mesh: 'word-split', status: 'failed', cause: 'message_lost', member: 'words', n: 2, daysAgo: 0 },
  { tag: 'c1', mesh: 'invoices', status: 'stalled', cause: 'stalled', member: null, n: 2, daysAgo: 0 },
  { tag: 'd1', mesh: 'claims', status: 'failed', cause: 'rate_limited', member: 'classify', n: 4, daysAgo: 3 },
  { tag: 'e1', mesh: 'claims', status: 'done', cause: null, member: null, n: 5, daysAgo: 0 },
];
const runIds = (tag: string, n = RUNS.find((r) => r.tag === tag)?.n ?? 0) =>
  Array.from({ length: n }, (_, i) => `0000000${i}-0000-7000-8000-${tag.padStart(12, '0')}`);
const [CLAIMS_RUN = '', WS1 = '', WS2 = ''] = [runIds('a1')[0], ...runIds('b1')];
const [STALLED_1 = ''] = runIds('c1');
/** Messages: [id, run, member, status, error]; each has 3 attempts. */
const MESSAGES: readonly [string, string, string, string, string | null][] = [
  ['aa01', CLAIMS_RUN, 'classify', 'dead', 'the model answered with text that is not JSON'],
  ['aa02', CLAIMS_RUN, 'classify', 'dead', 'the model answered with text that is not JSON'],
  ['aa03', CLAIMS_RUN, 'intake', 'done', null],
  ['bb01', WS1, 'words', 'lost', 'its job kept disappearing from the queue'],
  ['bb02', WS1, 'words', 'lost', 'its job kept disappearing from the queue'],
  ['bb03', WS2, 'words', 'lost', 'its job kept disappearing from the queue'],
  ['cc01', STALLED_1, 'fetch', 'pending', null],
];
const ATTEMPTS = 3;
const APPROVALS: readonly [string, string][] = [['ap1', 'pending'], ['ap2', 'pending'], ['ap3', 'approved']];

/** Seeds {@link RUNS}, {@link MESSAGES} and {@link APPROVALS} by hand. */
async function seed(w: TestWorld): Promise<void> {
  for (const g of RUNS) {
    const age = `${g.daysAgo} days`;
    for (const id of runIds(g.tag)) {
      await w.engine.db.execute(
        sql`insert into runs (id, mesh_id, mesh_name, mesh_version, status, cause, cause_member, cause_message, input, started_at, ended_at, moved_at)
            values (${id}, ${`m-${g.mesh}`}, ${g.mesh}, 1, ${g.status}, ${g.cause}, ${g.member}, ${g.cause ? `The step at ${g.member ?? 'the mesh'} went wrong.` : null}, '{}'::jsonb,
                    now() - ${age}::interval, case when ${g.status} in ('failed', 'done') then now() - ${age}::interval end, now() - ${age}::interval)`,
      );
    }
  }
  for (const [id, runId, member, status, error] of MESSAGES) {
    await w.engine.db.execute(
      sql`insert into messages (id, run_id, member, payload, status, attempts, error, finished_at)
          values (${id.padEnd(64, '0')}, ${runId}, ${member}, '{}'::jsonb, ${status}, ${ATTEMPTS}, ${error}, now())`,
    );
  }
  for (const [id, status] of APPROVALS) {
    await w.engine.db.execute(
      sql`insert into approvals (id, run_id, mesh_id, mesh_name, member, children, status) values (${id}, ${CLAIMS_RUN}, 'm-claims', 'claims', 'review', '[]'::jsonb, ${status})`,
    );
  }
}

const broken = (g: SeededRuns) => g.status === 'failed' || g.status === 'stalled';
const messagesOf = (runId: string, status: string) => MESSAGES.filter((m) => m[1] === runId && m[3] === status).length;

describe('the assistant without a model (intent matcher)', () => {
  it('answers what broke today, why a run failed, stalled, lost and approvals with numbers from the database', async () => {
    const world = await worlds.open();
    await seed(world);

    const broke = await ask(world.engine, { question: 'What broke today?', userId: 'u1', role: 'operator' });
    expect(broke).toMatchObject({ via: 'matcher', intent: 'failures' });
    const today = RUNS.filter((g) => broken(g) && g.daysAgo === 0);
    const total = today.reduce((n, g) => n + g.n, 0);
    const meshes = new Set(today.map((g) => g.mesh)).size;
    expect([total, meshes]).toEqual([8, 3]);
    expect(broke.answer.split('\n')[0]).toBe(`${total} runs failed or stalled today (UTC), in ${meshes} meshes:`);
    for (const g of today) expect(broke.answer).toContain(`- ${g.mesh}: ${g.n} run${g.n === 1 ? '' : 's'} ${g.cause}`);
    expect(sorted(numbersIn(broke.answer))).toEqual(sorted([total, meshes, ...today.map((g) => g.n)]));

    const week = await ask(world.engine, { question: 'which meshes failed this week and why?', userId: 'u1', role: 'operator' });
    const weekTotal = RUNS.filter((g) => broken(g) && g.daysAgo < 7).reduce((n, g) => n + g.n, 0);
    expect(week.answer.split('\n')[0]).toContain(`${weekTotal} runs failed or stalled in the last 7 days`);

    const why = await ask(world.engine, { question: `Why did run ${CLAIMS_RUN} fail?`, userId: 'u1', role: 'operator' });
    const [dead, lost] = [messagesOf(CLAIMS_RUN, 'dead'), messagesOf(CLAIMS_RUN, 'lost')];
    expect(why.answer).toContain(`Run ${CLAIMS_RUN} (claims v1) failed with cause step_code_failed at member classify.`);
    expect(why.answer).toContain(`It has ${dead} dead-lettered messages and ${lost} lost messages.`);
    // Numbers: the version (1), dead, lost, and each broken message's attempts.
    expect(sorted(numbersIn(why.answer))).toEqual(sorted([1, dead, lost, ...Array.from({ length: dead + lost }, () => ATTEMPTS)]));

    const stalled = await ask(world.engine, { question: 'Is anything stuck?', userId: 'u1', role: 'operator' });
    const stalledIds = RUNS.filter((g) => g.status === 'stalled').flatMap((g) => runIds(g.tag));
    const openOf = (id: string) => MESSAGES.filter((m) => m[1] === id && ['pending', 'running', 'parked'].includes(m[3])).length;
    expect(stalled.answer.split('\n')[0]).toBe(`${stalledIds.length} runs are stalled:`);
    for (const id of stalledIds) expect(stalled.answer).toContain(`- ${id} (invoices): quiet since`);
    expect(sorted(numbersIn(stalled.answer))).toEqual(sorted([stalledIds.length, ...stalledIds.map(openOf)]));

    const lostAnswer = await ask(world.engine, { question: 'Were any messages lost?', userId: 'u1', role: 'operator' });
    const lostMessages = MESSAGES.filter((m) => m[3] === 'lost');
    const lostRuns = new Set(lostMessages.map((m) => m[1])).size;
    expect(lostAnswer.answer).toBe(`${lostMessages.length} messages were lost today (UTC):\n- word-split at words: ${lostMessages.length} messages in ${lostRuns} runs`);

    const approvals = await ask(world.engine, { question: 'What is waiting for approval?', userId: 'u1', role: 'operator' });
    const waiting = APPROVALS.filter(([, status]) => status === 'pending').length;
    expect(approvals.answer.split('\n')[0]).toBe(`${waiting} approval requests are waiting:`);
    expect(approvals.answer).toContain(`- claims at review: ${waiting} requests`);
    expect(sorted(numbersIn(approvals.answer))).toEqual([waiting, waiting]);

    expect((await ask(world.engine, { question: 'hello there', userId: 'u1', role: 'operator' })).intent).toBe('help');
  });

  it('finds a run by a shortened id (prefix, or prefix…suffix as run lists show it) and asks back when several match', async () => {
    const world = await worlds.open();
    await seed(world);
    const runId = CLAIMS_RUN;
    const short = await ask(world.engine, { question: 'why did run 00000000…00a1 fail?', userId: 'u1', role: 'operator' });
    expect(short.intent).toBe('why');
    expect(short.answer).toContain(`Run ${runId} (claims v1) failed with cause step_code_failed at member classify.`);
    const dots = await ask(world.engine, { question: 'what went wrong with 00000000...00a1', userId: 'u1', role: 'operator' });
    expect(dots.answer).toBe(short.answer);
    const prefix = await ask(world.engine, { question: 'why did run 00000004 fail?', userId: 'u1', role: 'operator' });
    expect(prefix.answer).toBe('Run 00000004-0000-7000-8000-0000000000e1 (claims v1) did not fail: it is done.');

    // 00000003 starts two runs (d1 and e1): both are named, nothing is guessed.
    const two = await ask(world.engine, { question: 'why did run 00000003 fail?', userId: 'u1', role: 'operator' });
    const matching = RUNS.flatMap((g) => runIds(g.tag)).filter((id) => id.startsWith('00000003')).map((id) => ({ id }));
    expect(matching).toHaveLength(2);
    expect(two.intent).toBe('why');
    expect(two.answer.split('\n')[0]).toBe('2 runs match 00000003; which one do you mean? Give more of its id:');
    for (const r of matching) expect(two.answer).toContain(`- ${r.id} (claims, `);
    const many = await ask(world.engine, { question: 'why did run 000000 fail?', userId: 'u1', role: 'operator' });
    expect(many.answer.split('\n')[0]).toBe('More than 5 runs match 000000; which one do you mean? Give more of its id:');
    const none = await ask(world.engine, { question: 'why did run 0abcdef1 fail?', userId: 'u1', role: 'operator' });
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

    const asked = await ask(engine, { question: 'Re-open the failed runs of mesh word-split on the latest version', userId: 'u1', role: 'operator' });
    expect(asked.answer.split('\n')[0]).toBe('Re-open 1 run from member words on the latest saved version (v2).');
    expect(asked.proposal).toMatchObject({ runIds: [runId], version: 'latest' });
    const token = asked.proposal?.token ?? '';
    await new Promise((r) => setTimeout(r, 300));
    expect(await statusOf(world, runId)).toBe('failed');

    // Anything but an explicit yes, a forged token, or someone else's "yes" does nothing.
    expect((await ask(engine, { question: 'hmm, maybe', confirmToken: token, userId: 'u1', role: 'operator' })).intent).toBe('help');
    expect((await ask(engine, { question: 'yes', userId: 'u1', role: 'operator' })).answer).toMatch(/nothing waiting for a yes/);
    const forged = `${token.split('.')[0] ?? ''}x.${token.split('.')[1] ?? ''}`;
    expect((await ask(engine, { question: 'yes', confirmToken: forged, userId: 'u1', role: 'operator' })).answer).toMatch(/^Nothing was done/);
    expect((await ask(engine, { question: 'yes', confirmToken: token, userId: 'u2', role: 'operator' })).answer).toMatch(/someone else/);
    expect(await statusOf(world, runId)).toBe('failed');
    const no = await ask(engine, { question: 'No', confirmToken: token, userId: 'u1', role: 'operator' });
    expect(no).toMatchObject({ intent: 'cancel', answer: 'Cancelled, nothing was re-opened.' });
    expect(await statusOf(world, runId)).toBe('failed');

    // The run named by the shortened id run lists show gets the same proposal.
    const byShort = await ask(engine, { question: `re-open run ${runId.slice(0, 8)}…${runId.slice(-4)} on the latest version`, userId: 'u1', role: 'operator' });
    expect(byShort.proposal).toMatchObject({ runIds: [runId], version: 'latest' });

    const yes = await ask(engine, { question: 'Yes', confirmToken: token, userId: 'u1', role: 'operator' });
    expect(yes.answer).toBe(`Re-opened 1 run: ${runId} (attempt 2, v2).`);
    const view = await waitForRun(engine.db, runId, { timeoutMs: 30_000 });
    await expectExactDone(engine.db, view.id);
    expect((view.output as { text: string }).text).toBe('one two\nthree');
  });
});

async function urgentOf(w: TestWorld, runId: string): Promise<boolean | undefined> {
  return (await rows<{ urgent: boolean }>(w.engine.db, sql`select urgent from runs where id = ${runId}`))[0]?.urgent;
}

describe('mark urgent through the assistant', () => {
  it('proposes marking runs urgent, refuses roles without operate, and marks only on a yes with the token', async () => {
    const world = await worlds.open();
    const engine = world.engine;
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    // No worker serves them: the runs stay open with their messages waiting.
    const a = (await startRun(engine, { meshId, input: { bytes: new TextEncoder().encode('one') } })).runId;
    const b = (await startRun(engine, { meshId, input: { bytes: new TextEncoder().encode('two') } })).runId;
    const ended = (await startRun(engine, { meshId, input: { bytes: new TextEncoder().encode('three') } })).runId;
    await cancelRun(engine, { runId: ended });

    // A viewer or a designer is refused by the role policy, and nothing is proposed.
    for (const role of ['viewer', 'designer'] as const) {
      const refused = await ask(engine, { question: `mark run ${a} urgent`, userId: 'u2', role });
      expect(refused).toMatchObject({ intent: 'urgent', answer: `Refused by the role policy: marking runs urgent needs "operate" (admin, operator); you are ${role}. Nothing was done.` });
      expect(refused.proposal).toBeUndefined();
    }

    const asked = await ask(engine, { question: 'Mark the runs of mesh word-split urgent', userId: 'u1', role: 'operator' });
    expect(asked.answer.split('\n')).toEqual([
      'Mark 2 runs of mesh word-split urgent: their waiting messages go ahead of normal work on every pool they reach (normal work keeps its reserved share).',
      `- ${a}`,
      `- ${b}`,
      'Reply "yes" to go ahead; anything else cancels.',
    ]);
    expect(asked.proposal).toMatchObject({ kind: 'urgent', runIds: [a, b] });
    const token = asked.proposal?.token ?? '';
    expect(await urgentOf(world, a)).toBe(false);

    // Someone else's yes, a yes after the role was taken away, and a no do nothing.
    expect((await ask(engine, { question: 'yes', confirmToken: token, userId: 'u2', role: 'operator' })).answer).toMatch(/someone else/);
    expect((await ask(engine, { question: 'yes', confirmToken: token, userId: 'u1', role: 'viewer' })).answer).toBe(
      'Refused by the role policy: marking runs urgent needs "operate" (admin, operator); you are viewer. Nothing was done.',
    );
    expect((await ask(engine, { question: 'no', confirmToken: token, userId: 'u1', role: 'operator' })).answer).toBe('Cancelled, nothing was marked urgent.');
    expect([await urgentOf(world, a), await urgentOf(world, b)]).toEqual([false, false]);

    const yes = await ask(engine, { question: 'yes', confirmToken: token, userId: 'u1', role: 'operator' });
    expect(yes.answer).toMatch(new RegExp(`^Marked 2 runs urgent: ${a}, ${b}\\. (Moved \\d+ waiting messages? to the urgent lanes|Their waiting messages are claimed first from now on)\\.$`));
    expect([await urgentOf(world, a), await urgentOf(world, b)]).toEqual([true, true]);
    // Marked for the person who said yes (no such user here, so kept as detail.by).
    const audit = await rows<{ target: string; by: string }>(engine.db, sql`select target, detail ->> 'by' as by from audit_log where action = 'run.urgent' order by seq`);
    expect(audit).toEqual([{ target: a, by: 'u1' }, { target: b, by: 'u1' }]);

    // Named runs: those already urgent, ended or unknown are left out, each with its reason.
    const again = await ask(engine, { question: `mark run ${a} and ${ended} urgent`, userId: 'u1', role: 'operator' });
    expect(again.answer).toBe(['None of those runs can be marked urgent:', `- ${a}: it is urgent already`, `- ${ended}: it has already ended (cancelled)`].join('\n'));
    expect(again.proposal).toBeUndefined();
    expect((await ask(engine, { question: 'mark the runs of mesh nothing-here urgent', userId: 'u1', role: 'admin' })).answer).toBe(
      'Mesh nothing-here has no queued, running or stalled run to mark urgent; nothing was done.',
    );
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

    const reply = await ask(world.engine, { question: 'What broke today?', userId: 'u1', role: 'operator' }, model);
    expect(reply).toMatchObject({ via: 'model', intent: 'failures' });
    expect(seen[0]?.tools).toEqual(['failures', 'why_run_failed', 'stalled_runs', 'lost_messages', 'approvals_waiting', 'propose_reopen']);
    const [n] = await rows<{ n: number }>(world.engine.db, sql`select count(*)::int as n from runs where status = 'failed' and cause = 'step_code_failed'`);
    expect(reply.answer).toBe(`word-split failed ${n?.n} times (step_code_failed).`);

    const proposal = await ask(world.engine, { question: 'Please re-open them on the latest version', userId: 'u1', role: 'operator' }, model);
    expect(proposal.answer).toContain('Re-open 1 run from member words on the latest saved version (v2).');
    expect(proposal.proposal?.runIds).toEqual([runId]);
    expect(await statusOf(world, runId)).toBe('failed');
    // A model that cannot be reached: the matcher answers, and says so.
    const down = await ask(world.engine, { question: 'What broke today?', userId: 'u1', role: 'operator' }, { model: 'ops', baseUrl: 'http://127.0.0.1:1/v1', apiKey: undefined });
    expect(down.via).toBe('matcher');
    expect(down.answer).toMatch(/^\(The assistant model ops could not answer: .+\. Answered with the built-in matcher\.\)\n1 run failed or stalled today/);

    const yes = await ask(world.engine, { question: 'yes', confirmToken: proposal.proposal?.token ?? '', userId: 'u1', role: 'operator' }, model);
    expect(yes.answer).toContain('Re-opened 1 run');
    await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    await expectExactDone(world.engine.db, runId);
  });
});
