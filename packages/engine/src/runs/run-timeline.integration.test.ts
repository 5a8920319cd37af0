import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestDb } from '../../test/harness';
import { saveMesh } from '../meshes/save-mesh';
import { bucketFor, MAX_BUCKETS, runTimeline } from './run-timeline';

const MESH = {
  format: 'trellis.mesh/v1',
  name: 'timeline',
  members: [
    { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'word' }] },
    { id: 'words', kind: 'workflow', steps: [{ type: 'pass' }] },
    { id: 'check', kind: 'service', service: 'records-check' },
  ],
  channels: [{ from: 'head', to: 'words' }, { from: 'words', to: 'check' }],
};

/** 10,000 words over 100 s: word i finishes at 1 + i/100 s; every 1,000th needed a second delivery; the last 10 are dead. */
const WORDS = 10_000;

describe('runTimeline', () => {
  const t = useTestDb('postgres');

  it('aggregates members, retries, parked time, failure and waves in SQL, within the bucket limit', async () => {
    const saved = await saveMesh(t.db, { definition: MESH });
    if (!saved.ok) throw new Error(saved.message);
    const t0 = '2026-03-10T10:00:00Z';
    await t.db.execute(sql`insert into runs (id, mesh_id, mesh_name, mesh_version, status, input, created_at, started_at, ended_at, cause, cause_member)
      values ('run-t', ${saved.meshId}, 'timeline', 1, 'failed', '{}'::jsonb, ${t0}::timestamptz, ${t0}::timestamptz + interval '0.5 s',
              ${t0}::timestamptz + interval '130 s', 'step_failed', 'words')`);
    await t.db.execute(sql`insert into messages (id, run_id, member, payload, status, attempts, created_at, started_at, finished_at)
      values ('m-head', 'run-t', 'head', '{}'::jsonb, 'done', 1, ${t0}::timestamptz, ${t0}::timestamptz + interval '0.5 s', ${t0}::timestamptz + interval '1 s')`);
    await t.db.execute(sql`insert into messages (id, run_id, member, payload, status, attempts, error, created_at, started_at, finished_at)
      select 'w-' || i, 'run-t', 'words', '{}'::jsonb,
             case when i >= ${WORDS - 10} then 'dead' else 'done' end,
             case when i % 1000 = 0 then 2 else 1 end,
             case when i >= ${WORDS - 10} then 'boom ' || i end,
             ${t0}::timestamptz + interval '1 s',
             ${t0}::timestamptz + interval '1 s' + (i / 100.0) * interval '1 s' - interval '0.5 s',
             ${t0}::timestamptz + interval '1 s' + (i / 100.0) * interval '1 s'
        from generate_series(0, ${WORDS - 1}) i`);
    // Two service jobs: one parked for 20 s and done, one still parked since 120 s.
    await t.db.execute(sql`insert into messages (id, run_id, member, payload, status, attempts, created_at, started_at, finished_at) values
      ('c-1', 'run-t', 'check', '{}'::jsonb, 'done', 1, ${t0}::timestamptz + interval '100 s', ${t0}::timestamptz + interval '100 s', ${t0}::timestamptz + interval '120 s'),
      ('c-2', 'run-t', 'check', '{}'::jsonb, 'parked', 1, ${t0}::timestamptz + interval '120 s', ${t0}::timestamptz + interval '120 s', null)`);
    // A part routing dropped is not a message that ran.
    await t.db.execute(sql`insert into messages (id, run_id, member, payload, status, created_at) values ('f-1', 'run-t', 'check', '{}'::jsonb, 'filtered', ${t0}::timestamptz)`);
    await t.db.execute(sql`insert into run_attempts (id, run_id, attempt, version_choice, mesh_version, previous_version, previous_status, created_at)
      values ('a-2', 'run-t', 2, 'pinned', 1, 1, 'failed', ${t0}::timestamptz + interval '125 s')`);

    const tl = await runTimeline(t.db, 'run-t');
    if (!tl) throw new Error('no timeline');
    expect(tl.startedAt).toBe(0.5);
    expect(tl.endedAt).toBe(130);
    expect(tl.bucketSeconds).toBe(bucketFor(130));
    expect(tl.bucketSeconds).toBe(5);
    expect(tl.causeMember).toBe('words');
    expect(tl.members.map((m) => m.member)).toEqual(['head', 'words', 'check']);
    const [head, words, check] = tl.members;
    expect(head).toMatchObject({ firstAt: 0, startedAt: 0.5, endedAt: 1, messages: 1, done: 1, retries: 0, parks: false, failedAt: null });
    expect(words).toMatchObject({ firstAt: 1, startedAt: 0.5, messages: WORDS, done: WORDS - 10, dead: 10, open: 0, retries: 10, retried: 10, parks: false, parkedSeconds: 0 });
    expect(words?.endedAt).toBeCloseTo(1 + (WORDS - 1) / 100, 6);
    expect(words?.failedAt).toBeCloseTo(1 + (WORDS - 10) / 100, 6);
    expect(words?.error).toBe(`boom ${WORDS - 10}`);
    // The parked one is still open: its row has no end, and its wait counts up to now (far past 120 s).
    expect(check).toMatchObject({ messages: 2, done: 1, open: 1, parks: true, endedAt: null, lastAt: 120 });
    expect(check?.parkedSeconds).toBeGreaterThan(20 + 1000);
    expect(tl.reopens).toEqual([{ attempt: 2, at: 125 }]);

    // The waves add up to every finished message, in at most MAX_BUCKETS buckets per member.
    const sum = (xs: readonly { done: number; failed: number }[]) => xs.reduce((n, c) => n + c.done + c.failed, 0);
    expect(sum(tl.waves)).toBe(1 + WORDS + 1);
    expect(sum(tl.throughput)).toBe(1 + WORDS + 1);
    expect(tl.throughput.reduce((n, c) => n + c.failed, 0)).toBe(10);
    expect(Math.max(...tl.throughput.map((c) => c.bucket))).toBeLessThan(MAX_BUCKETS);
    expect(tl.waves.length).toBeLessThanOrEqual(3 * MAX_BUCKETS);
    // 100 words a second: a full 5-second bucket of words holds 500.
    expect(tl.waves.find((w) => w.member === 'words' && w.bucket === 10)).toEqual({ member: 'words', bucket: 10, done: 500, failed: 0 });
  });

  it('answers null for a run that does not exist, and picks buckets that fit the span', async () => {
    expect(await runTimeline(t.db, 'no-such-run')).toBeNull();
    expect(bucketFor(0)).toBe(0.1);
    expect(bucketFor(6)).toBe(0.1);
    expect(bucketFor(7)).toBe(0.2);
    expect(bucketFor(3600)).toBe(60);
    expect(bucketFor(10 * 86_400)).toBe(21_600);
    expect(bucketFor(100 * 86_400)).toBe(144_000);
  });
});
