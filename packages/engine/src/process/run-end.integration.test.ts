import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { causeSentence } from '@trellis/mesh/causes';
import { WORD_SPLIT, saveOrThrow, useWorlds, type TestWorld } from '../../test/harness';
import { getRun } from '../runs/get-run';
import { startRun } from '../runs/start-run';
import { rows } from '../kernel/sql';
import { recordRunFailure } from '../lifecycle/record-failure';
import { failRun, finalizeRuns, publishCommitted } from './run-end';

// Ending runs called directly on rows set up by hand: which runs end done, the sentence of a join
// that can never fire, failRun's first-cause-wins, label and child-run rules, and what a run ended
// done tells others: its Action Center stalled item, and its parked parent.
describe('ending runs', () => {
  const worlds = useWorlds();

  async function started(world: TestWorld, text = 'one two') {
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    return startRun(world.engine, { meshId, input: { text } });
  }
  const finishAll = (world: TestWorld, runId: string) => world.engine.db.execute(sql`update messages set status = 'done', finished_at = now() where run_id = ${runId}`);
  const events = (world: TestWorld, runId: string) =>
    rows<{ kind: string; status: string | null }>(world.engine.db, sql`select kind, status from engine_events where run_id = ${runId} and kind = 'run.status' order by id`);
  /** A parent run whose head message waits on a child run, as a nested mesh member leaves it. */
  async function parkedOnChild(world: TestWorld) {
    const parent = await started(world);
    const child = await started(world);
    await world.engine.db.execute(sql`update messages set status = 'parked' where id = ${parent.messageId}`);
    await world.engine.db.execute(sql`update runs set parent_run_id = ${parent.runId}, parent_message_id = ${parent.messageId} where id = ${child.runId}`);
    return { parent, child };
  }
  /** The Action Center items holding the run, with their cause, detail and state. */
  const itemsOf = (world: TestWorld, runId: string) =>
    rows<{ id: string; cause: string; detail: string; state: string }>(
      world.engine.db,
      sql`select ai.id, ai.cause, ai.detail, ai.state from action_items ai join action_item_runs air on air.item_id = ai.id where air.run_id = ${runId} order by ai.cause`,
    );

  it('ends done exactly the runs with every message finished and every join fired', async () => {
    const world = await worlds.open();
    const { engine } = world;
    const finished = await started(world);
    const open = await started(world);
    const failed = await started(world);
    await finishAll(world, finished.runId);
    await finishAll(world, failed.runId);
    await failRun(engine.db, failed.runId, { cause: 'step_code_failed', member: 'pages', detail: 'boom' });
    const before = await events(world, finished.runId);

    expect(await finalizeRuns(engine, [])).toEqual([]);
    expect(await finalizeRuns(engine, [open.runId, finished.runId, failed.runId])).toEqual([finished.runId]);
    expect(await getRun(engine.db, finished.runId)).toMatchObject({ status: 'done', cause: null });
    expect((await getRun(engine.db, open.runId))?.status).toBe('running');
    expect(await getRun(engine.db, failed.runId)).toMatchObject({ status: 'failed', cause: 'step_code_failed' });
    // Watchers of the done run are told once, that it is done.
    expect((await events(world, finished.runId)).slice(before.length)).toEqual([{ kind: 'run.status', status: 'done' }]);
    // Idempotent: a second call ends nothing more.
    expect(await finalizeRuns(engine, [finished.runId])).toEqual([]);
  });

  it('fails a quiet run with an unfired join, counting arrived and skipped parts in the sentence', async () => {
    const world = await worlds.open();
    const { engine } = world;
    const skipped = await started(world);
    const plain = await started(world);
    for (const r of [skipped, plain]) await finishAll(world, r.runId);
    await engine.db.execute(sql`insert into joins (run_id, member, key, expected, received, skipped) values (${skipped.runId}, 'join', 'k', 5, 3, 1)`);
    await engine.db.execute(sql`insert into joins (run_id, member, key, expected, received, skipped) values (${plain.runId}, 'join', 'k', 2, 1, 0)`);

    expect(await finalizeRuns(engine, [skipped.runId, plain.runId])).toEqual([]);
    const sentence = (detail: string) => causeSentence({ cause: 'outcome_unreadable', member: 'join', detail });
    expect(await getRun(engine.db, skipped.runId)).toMatchObject({
      status: 'failed',
      cause: 'outcome_unreadable',
      causeMember: 'join',
      causeMessage: sentence('the combine received 2 of 5 parts and 1 skipped, and nothing is left that could send the rest, so it can never fire'),
    });
    expect((await getRun(engine.db, plain.runId))?.causeMessage).toBe(
      sentence('the combine received 1 of 2 parts, and nothing is left that could send the rest, so it can never fire'),
    );
  });

  it('fails a run once: the first cause stays, the label names the member, the step is said', async () => {
    const world = await worlds.open();
    const { engine } = world;
    const { runId } = await started(world);
    const first = { cause: 'step_code_failed' as const, member: 'pages', memberLabel: 'Cut pages', step: 'split', detail: 'boom' };
    expect(await failRun(engine.db, runId, first)).toBe(true);
    expect(await failRun(engine.db, runId, { cause: 'message_lost', member: 'words', detail: 'later' })).toBe(false);
    expect(await getRun(engine.db, runId)).toMatchObject({
      status: 'failed',
      cause: 'step_code_failed',
      causeMember: 'pages',
      causeMessage: causeSentence({ cause: 'step_code_failed', member: 'Cut pages', step: 'split', detail: 'boom' }),
    });
    // The refused second failure records nothing: the run is in its first cause's item alone, whose
    // detail is the first one's, and watchers were told of one failure.
    expect((await itemsOf(world, runId)).map(({ cause, detail, state }) => ({ cause, detail, state }))).toEqual([
      { cause: 'step_code_failed', detail: 'boom', state: 'open' },
    ]);
    const [told] = await rows<{ n: number }>(engine.db, sql`select count(*)::int as n from engine_events where run_id = ${runId} and kind = 'run.failed'`);
    expect(told?.n).toBe(1);
    // A failure without member names no member.
    const other = await started(world);
    expect(await failRun(engine.db, other.runId, { cause: 'message_lost', detail: 'gone' })).toBe(true);
    expect(await getRun(engine.db, other.runId)).toMatchObject({ causeMember: null, causeMessage: causeSentence({ cause: 'message_lost', detail: 'gone' }) });
  });

  it('cancels the running child runs of a run it fails, and only then', async () => {
    const world = await worlds.open();
    const { engine } = world;
    const parent = await started(world);
    const child = await started(world);
    await engine.db.execute(sql`update runs set parent_run_id = ${parent.runId} where id = ${child.runId}`);
    expect(await failRun(engine.db, parent.runId, { cause: 'step_code_failed', member: 'pages', detail: 'boom' })).toBe(true);
    expect(await getRun(engine.db, child.runId)).toMatchObject({ status: 'cancelled', causeMessage: `Cancelled because its parent run ${parent.runId} failed.` });
    // A refused second failure (the parent has ended already) cancels nothing.
    const late = await started(world);
    await engine.db.execute(sql`update runs set parent_run_id = ${parent.runId} where id = ${late.runId}`);
    expect(await failRun(engine.db, parent.runId, { cause: 'message_lost', detail: 'again' })).toBe(false);
    expect((await getRun(engine.db, late.runId))?.status).toBe('running');
  });

  it('a stalled run it ends done leaves its stalled item, which resolves itself', async () => {
    const world = await worlds.open();
    const { engine } = world;
    const { runId } = await started(world);
    await finishAll(world, runId);
    // As the stall detector leaves it: the run stalled, in an open `stalled` item (runtime/sweep.ts).
    await engine.db.execute(sql`update runs set status = 'stalled' where id = ${runId}`);
    const item = await recordRunFailure(engine.db, runId, { cause: 'stalled', detail: 'nothing moved for 2 min' });
    expect(await finalizeRuns(engine, [runId])).toEqual([runId]);
    expect((await getRun(engine.db, runId))?.status).toBe('done');
    expect((await itemsOf(world, runId)).map((i) => [i.id, i.state])).toEqual([[item, 'resolved']]);
    const history = await rows<{ action: string }>(engine.db, sql`select action from action_item_history where item_id = ${item ?? ''} order by id`);
    expect(history.map((h) => h.action)).toEqual(['opened', 'run_added', 'run_moved', 'resolved']);
  });

  it('a child run it ends done continues its parked parent with the child output', async () => {
    const world = await worlds.open();
    const { engine } = world;
    const { parent, child } = await parkedOnChild(world);
    await engine.db.execute(sql`update runs set output = '{"text":"x y"}'::jsonb where id = ${child.runId}`);
    await finishAll(world, child.runId);
    expect(await finalizeRuns(engine, [child.runId])).toEqual([child.runId]);
    // Right away, not by the orchestrator's sweep (none runs here): the head is done and its one
    // line went on to `lines` with the child's output.
    const [head] = await rows<{ status: string }>(engine.db, sql`select status from messages where id = ${parent.messageId}`);
    expect(head?.status).toBe('done');
    const sent = await rows<{ id: string; member: string }>(engine.db, sql`select id, member from messages where parent_id = ${parent.messageId}`);
    expect(sent.map((m) => m.member)).toEqual(['lines']);
    // ...and is on the bus, as a job under its own id.
    expect((await engine.queue('default').getJob(sent[0]?.id ?? ''))?.id).toBe(sent[0]?.id);
  });

  it('a child run it fails fails its parked parent at once, with the child run named', async () => {
    const world = await worlds.open();
    const { engine } = world;
    const { parent, child } = await parkedOnChild(world);
    expect(await failRun(engine.db, child.runId, { cause: 'message_lost', detail: 'gone' })).toBe(true);
    const [head] = await rows<{ status: string }>(engine.db, sql`select status from messages where id = ${parent.messageId}`);
    expect(head?.status).toBe('dead');
    expect(await getRun(engine.db, parent.runId)).toMatchObject({ status: 'failed', cause: 'message_lost', causeMember: 'pages' });
    expect((await getRun(engine.db, parent.runId))?.causeMessage).toContain(`failed in child run ${child.runId}`);
  });

  it('leaves nothing to publish for no result', async () => {
    const world = await worlds.open();
    const { runId } = await started(world);
    await finishAll(world, runId);
    await publishCommitted(world.engine, undefined);
    expect((await getRun(world.engine.db, runId))?.status).toBe('running');
    await publishCommitted(world.engine, { children: [], quiet: [runId], handled: new Set(), failed: new Map(), steps: [], joinWaits: [] });
    expect((await getRun(world.engine.db, runId))?.status).toBe('done');
  });
});
