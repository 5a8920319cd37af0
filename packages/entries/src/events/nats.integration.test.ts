import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { headers as natsHeaders } from '@nats-io/nats-core';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { runEntries } from '@trellis/db/schema/run-entries';
import { runs } from '@trellis/db/schema/runs';
import { silentLogger } from '@trellis/engine/log';
import { saveOrThrow, useWorlds, WORD_SPLIT, type TestWorld } from '../../../engine/test/harness';
import { spawnEntries } from '../../test/support';
import { parseEntriesConfig } from '../config';
import { startEventSubscriptions } from './nats';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

interface Reply {
  body: Record<string, unknown>;
  runId: string | undefined;
  source: string | undefined;
}

interface Stream {
  nc: NatsConnection;
  name: string;
  subject: string;
  reply: string;
  /** Replies in arrival order; `nextReply` takes them one by one. */
  replies: Reply[];
  waiting: (() => void)[];
}

const streams: Stream[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) {
    await (await jetstreamManager(s.nc)).streams.delete(s.name).catch(() => undefined);
    await s.nc.close();
  }
});

/** A stream of this test's own (`T<hex>`, subject `t.<hex>.in`) and a subscription to its reply subject. */
async function testStream(): Promise<Stream> {
  const id = randomBytes(4).toString('hex');
  const nc = await connect({ servers: NATS_URL });
  const s: Stream = { nc, name: `T${id}`, subject: `t.${id}.in`, reply: `t.${id}.out`, replies: [], waiting: [] };
  nc.subscribe(s.reply, {
    callback: (_err, m) => {
      s.replies.push({ body: m.json<Record<string, unknown>>(), runId: m.headers?.get('Trellis-Run-Id') || undefined, source: m.headers?.get('Trellis-Source') || undefined });
      for (const w of s.waiting.splice(0)) w();
    },
  });
  await nc.flush();
  await (await jetstreamManager(nc)).streams.add({ name: s.name, subjects: [s.subject] });
  streams.push(s);
  return s;
}

/** The next reply, or a failure after `ms` (a lost message never replies). */
async function nextReply(s: Stream, ms = 60_000): Promise<Reply> {
  const deadline = Date.now() + ms;
  for (;;) {
    const reply = s.replies.shift();
    if (reply) return reply;
    if (Date.now() >= deadline) throw new Error(`no reply on ${s.reply} within ${ms} ms`);
    await new Promise<void>((resolve) => {
      s.waiting.push(resolve);
      setTimeout(resolve, Math.max(deadline - Date.now(), 1));
    });
  }
}

function binding(s: Stream, ackWaitSeconds = 30) {
  return { stream: s.name, subject: s.subject, mesh: 'word-split', replySubject: s.reply, ackWaitSeconds, answerWaitSeconds: 60 };
}

async function runsOf(world: TestWorld) {
  return world.engine.db.select({ id: runs.id, status: runs.status, key: runEntries.idempotencyKey, entry: runEntries.entry }).from(runs).leftJoin(runEntries, eq(runEntries.runId, runs.id));
}

describe('event mesh: NATS JetStream', () => {
  const worlds = useWorlds();

  it('starts a run per message, replies with its answer, and refuses a bad message with the shared error shape', async () => {
    const world = await worlds.open();
    await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
    const runtime = worlds.start(world, { pools: ['default'], concurrency: 4 });
    const s = await testStream();
    const config = parseEntriesConfig({ nats: { servers: NATS_URL, bindings: [binding(s)] } });
    const subs = await startEventSubscriptions(world.engine, config.nats ?? { servers: NATS_URL, bindings: [] }, silentLogger);
    try {
      const js = jetstream(s.nc);
      const ack = await js.publish(s.subject, 'one two three');
      const reply = await nextReply(s);
      expect(reply.body).toMatchObject({ status: 'done', ended: true, output: { text: 'one two three' } });
      expect(reply.source).toBe(`nats:${s.name}:${ack.seq}`);
      expect(await runsOf(world)).toEqual([{ id: reply.runId, status: 'done', key: `nats:${s.name}:${ack.seq}`, entry: 'event' }]);

      // A JSON message that is not an object: refused by the engine, acknowledged, replied.
      const h = natsHeaders();
      h.set('Content-Type', 'application/json');
      await js.publish(s.subject, '[1, 2]', { headers: h });
      const refused = await nextReply(s);
      expect(refused.body).toEqual({ error: { code: 'input_rejected', message: expect.stringContaining('a payload must be a JSON object') as unknown } });
      const payload = await js.publish(s.subject, JSON.stringify({ text: 'as json' }), { headers: h });
      expect((await nextReply(s)).body).toMatchObject({ status: 'done', output: { text: 'as json' } });
      expect(payload.seq).toBe(3);
    } finally {
      await subs.close();
      await runtime.close();
    }
  }, 120_000);

  for (const crash of ['before-commit', 'after-commit'] as const) {
    it(`keeps one run when the process is killed ${crash === 'before-commit' ? 'between receive and commit' : 'between commit and ack'}: the message is redelivered, nothing is lost`, async () => {
      const world = await worlds.open();
      await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
      const s = await testStream();
      const config = { nats: { servers: NATS_URL, bindings: [binding(s, 2)] } };
      const dying = await spawnEntries(world, config, { TRELLIS_TEST_ENTRY_CRASH: crash });
      const ack = await jetstream(s.nc).publish(s.subject, 'survives a crash');
      expect(await dying.exited).toBe('SIGKILL');
      const before = await runsOf(world);
      expect(before).toHaveLength(crash === 'before-commit' ? 0 : 1);

      const runtime = worlds.start(world, { pools: ['default'], concurrency: 4 });
      const again = await spawnEntries(world, config);
      try {
        const reply = await nextReply(s);
        expect(reply.body).toMatchObject({ status: 'done', output: { text: 'survives a crash' } });
        const after = await runsOf(world);
        expect(after).toEqual([{ id: reply.runId, status: 'done', key: `nats:${s.name}:${ack.seq}`, entry: 'event' }]);
        if (crash === 'after-commit') expect(after[0]?.id).toBe(before[0]?.id);
        const info = await (await jetstreamManager(s.nc)).consumers.info(s.name, 'trellis-word-split');
        expect(info.num_ack_pending).toBe(0);
        expect(info.num_pending).toBe(0);
        expect(info.delivered.stream_seq).toBe(ack.seq);
      } finally {
        again.kill();
        await again.exited;
        await runtime.close();
      }
    }, 240_000);
  }
});
