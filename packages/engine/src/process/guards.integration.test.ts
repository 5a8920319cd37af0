/**
 * Guards at the publish boundary, on Postgres: the depth limit (depth, never width) and channel
 * ownership (a forged route is refused before any child row or job exists).
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { WORD_SPLIT, saveOrThrow, useWorlds } from '../../test/harness';
import type { Route } from '../plan/plan';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { rows } from '../kernel/sql';

/** 2,000 words on one line: a 2,000-wide fan-out at depth 2. */
const WIDE = Array.from({ length: 2000 }, (_, i) => `w${i}`).join(' ');

describe('publish guards', () => {
  const worlds = useWorlds();

  async function wordSplit(config: Parameters<typeof worlds.open>[0], text: string) {
    const world = await worlds.open(config);
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    worlds.start(world, { pools: ['default'], concurrency: 200 });
    const { runId } = await startRun(world.engine, { meshId, input: { text } });
    return waitForRun(world.engine.db, runId, { timeoutMs: 60_000 });
  }

  // word-split's deepest publisher is join-lines at depth 4, publishing at depth 5.
  it('lets a 2,000-wide fan-out through at exactly the depth limit', async () => {
    const view = await wordSplit({ maxDepth: 5 }, WIDE);
    expect(view.status).toBe('done');
    expect(view.output).toEqual({ text: WIDE });
    expect(view.memberCounts['join-words']?.done).toBe(2000);
  });

  it('fails the same run one hop past the limit with budget_spent, naming the member', async () => {
    const view = await wordSplit({ maxDepth: 4 }, WIDE);
    expect(view).toMatchObject({ status: 'failed', cause: 'budget_spent', causeMember: 'join-lines' });
    expect(view.causeMessage).toMatch(/deeper than 4 hops/);
    expect(view.memberCounts['join-pages']?.published ?? 0).toBe(0);
  });

  it('refuses a member publishing on a channel it does not own, before anything is written or enqueued', async () => {
    const world = await worlds.open();
    const { engine } = world;
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const { runId, messageId } = await startRun(engine, { meshId, input: { text: 'a b\nc' } });
    // Forge a route in the compiled plan: `pages` publishing on `lines->words`, a channel of `lines`.
    const [plan] = [...engine.plans.values()];
    if (!plan) throw new Error('startRun compiled no plan');
    (plan.routes.get('pages') as Route[]).push({ channel: 'lines->words', to: 'words', pool: 'default', joins: [] });
    worlds.start(world, { pools: ['default'] });
    const view = await waitForRun(engine.db, runId, { timeoutMs: 30_000 });
    expect(view).toMatchObject({ status: 'failed', cause: 'step_code_failed', causeMember: 'pages' });
    expect(view.causeMessage).toMatch(/channel lines->words to words, which it does not own; refused before sending/);
    // Nothing published: the head alone, dead-lettered; no child row, no job but the head's.
    expect(view.counts).toMatchObject({ published: 1, deadLettered: 1 });
    const [children] = await rows<{ n: number }>(engine.db, sql`select count(*)::int as n from messages where parent_id = ${messageId}`);
    expect(children?.n).toBe(0);
    const counts = await engine.queue('default').getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
    expect(counts).toMatchObject({ waiting: 0, active: 0, delayed: 0, failed: 1 });
  });
});
