/**
 * Live answers on real Postgres and Redis: a client with an API token follows a run over the SSE
 * stream, without polling, and sees its status and counts move until its final answer with the
 * output; the general stream carries `event: run` for every run that moved. The token check is the
 * one the web route makes before opening the stream.
 */
import { describe, expect, it } from 'vitest';
import { createPersonalToken } from '@trellis/engine/tokens/create-token';
import { addUser } from '@trellis/engine/users/add-user';
import { startEntryRun } from '@trellis/engine/runs/start-entry-run';
import { saveOrThrow, useWorlds, WORD_SPLIT, licensesText } from '../../../engine/test/harness';
import { authorizeCaller } from '../rest/caller';
import { runEventStream } from './run-events';

interface Sse {
  event: string;
  data: Record<string, unknown>;
}

/** Reads SSE messages until `until` says stop (or the stream ends). */
async function read(stream: ReadableStream<Uint8Array>, until: (m: Sse) => boolean): Promise<Sse[]> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const got: Sse[] = [];
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return got;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (!event || !data) continue;
      const m = { event, data: JSON.parse(data) as Record<string, unknown> };
      got.push(m);
      if (until(m)) {
        await reader.cancel();
        return got;
      }
    }
  }
}

describe('live answers over SSE', () => {
  const worlds = useWorlds();

  it('follow a run with an API token: status and counts as it moves, then its answer and the end', async () => {
    // Every message a job (inline lane off): the run must still be moving over several event-pump
    // ticks, and the inline lane finishes these 5,000 characters within about one.
    const world = await worlds.open({ inlineMax: 0 });
    const meshId = await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
    const user = await addUser(world.engine.db, { email: 'viewer@sse.test', role: 'viewer', password: 'sse-test-password' });
    const { token } = await createPersonalToken(world.engine.db, { id: user.id, email: 'viewer@sse.test', role: 'viewer' }, { name: 'follow', scope: 'read', expiresInDays: 1 });
    const req = new Request('http://t.test/api/events', { headers: { authorization: `Bearer ${token}` } });
    expect(await authorizeCaller(world.engine.db, req, () => Promise.resolve(null), 'read', 'GET /api/events')).toMatchObject({ role: 'viewer' });
    await expect(authorizeCaller(world.engine.db, new Request('http://t.test/api/events', { headers: { authorization: 'Bearer trl_nope' } }), () => Promise.resolve(null), 'read', 'GET /api/events')).rejects.toMatchObject({ httpStatus: 401 });

    const text = licensesText().toString('utf8').slice(0, 5_000);
    const { runId } = await startEntryRun(world.engine, { mesh: { id: meshId }, input: { text }, entry: 'rest', actor: { id: user.id, email: null } });
    const abort = new AbortController();
    const following = read(runEventStream(world.engine, { runId, signal: abort.signal }), (m) => m.event === 'end');
    const general = read(runEventStream(world.engine, { signal: abort.signal }), (m) => m.event === 'run' && m.data.runId === runId && m.data.ended === true);
    worlds.start(world, { pools: ['default'], concurrency: 8 });
    const events = await following;
    const runs = events.filter((m) => m.event === 'run').map((m) => m.data);
    expect(events.at(-1)?.event).toBe('end');
    // The first answer, at least one while it moved, and the final one.
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(runs.every((r) => r.runId === runId)).toBe(true);
    const last = runs.at(-1);
    expect(last).toMatchObject({ status: 'done', ended: true, cause: null, output: { text } });
    // Counts move: the first answer had fewer messages done than the last.
    const done = runs.map((r) => (r.counts as { done: number }).done);
    expect(done[0]).toBeLessThan(done.at(-1) ?? 0);
    expect(runs.slice(0, -1).every((r) => !('output' in r))).toBe(true);
    const all = await general;
    expect(all.some((m) => m.event === 'trellis')).toBe(true);
    expect(all.filter((m) => m.event === 'run').at(-1)?.data).toMatchObject({ runId, status: 'done', counts: last?.counts });
    abort.abort();
  }, 60_000);
});
