/**
 * Step spans reach an OTLP/HTTP collector: a real HTTP server here decodes what the SDK's JSON
 * exporter sends. One trace per run, its id derived from the run id; one span per message step,
 * carrying the run, message, member, kind and attempt, each a child of the run's root span, which
 * is sent once the run has ended and lasts from its creation to its end.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { WORD_SPLIT, saveOrThrow, useWorlds } from '../../test/harness';
import { until } from '../../test/recorder';
import { rows } from '../kernel/sql';
import { msgStatus } from '../kernel/statuses';
import { runRootSpanId, runTraceId } from '../kernel/tracing';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { startTracing } from './tracing';

/** The parts of an OTLP JSON export (ExportTraceServiceRequest) this test reads. */
const AnyValue = z.object({ stringValue: z.string().optional(), intValue: z.union([z.string(), z.number()]).optional() });
const OtlpSpan = z.object({
  traceId: z.string(),
  spanId: z.string(),
  parentSpanId: z.string().optional(),
  name: z.string(),
  startTimeUnixNano: z.string(),
  endTimeUnixNano: z.string(),
  status: z.object({ code: z.number().optional(), message: z.string().optional() }).optional(),
  attributes: z.array(z.object({ key: z.string(), value: AnyValue })),
});
const Export = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes: z.array(z.object({ key: z.string(), value: AnyValue })) }),
      scopeSpans: z.array(z.object({ spans: z.array(OtlpSpan) })),
    }),
  ),
});

interface Received {
  service: string | undefined;
  span: z.infer<typeof OtlpSpan>;
  attrs: Record<string, string | number | undefined>;
}

const received: Received[] = [];
let collector: Server;
let endpoint = '';

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) {
        const body = Export.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        for (const rs of body.resourceSpans) {
          const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
          for (const ss of rs.scopeSpans) {
            for (const span of ss.spans) {
              const attrs = Object.fromEntries(span.attributes.map((a) => [a.key, a.value.stringValue ?? (a.value.intValue === undefined ? undefined : Number(a.value.intValue))]));
              received.push({ service, span, attrs });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const address = collector.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => new Promise<void>((resolve) => collector.close(() => resolve())));

const worlds = useWorlds();

describe('tracing', () => {
  it('derives a trace id and root span id from the run id alone', () => {
    const runId = '0199a3c2-7d1e-7b2a-9c3d-4e5f60718293';
    expect(runTraceId(runId)).toBe('0199a3c27d1e7b2a9c3d4e5f60718293');
    expect(runTraceId('not-a-uuid')).toMatch(/^[0-9a-f]{32}$/);
    expect(runTraceId('not-a-uuid')).toBe(runTraceId('not-a-uuid'));
    expect(runRootSpanId(runId)).toMatch(/^[0-9a-f]{16}$/);
    expect(runRootSpanId(runId)).not.toBe(runRootSpanId('0199a3c2-7d1e-7b2a-9c3d-4e5f60718294'));
  });

  it("sends one span per step of a run, all in the run's trace, under the run's own span", async () => {
    const tracing = startTracing({ endpoint, serviceName: 'trellis-test', scheduledDelayMillis: 200 });
    try {
      const world = await worlds.open();
      const meshId = await saveOrThrow(world, WORD_SPLIT);
      worlds.start(world, { concurrency: 50 });
      const { runId } = await startRun(world.engine, { meshId, input: { bytes: new TextEncoder().encode('red green\nblue') } });
      expect((await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 })).status).toBe('done');
      await tracing.flush();

      const done = await rows(
        world.engine.db,
        sql`select id, member, attempts from messages where run_id = ${runId} and status = ${msgStatus('done')} order by id`,
        z.object({ id: z.string(), member: z.string(), attempts: z.number() }),
      );
      // The run's root span goes out once the orchestrator's event pump has seen the run end.
      const root = await until(async () => {
        await tracing.flush();
        return received.find((r) => r.span.spanId === runRootSpanId(runId));
      }, 'the run span');
      const [run] = await rows(
        world.engine.db,
        sql`select (extract(epoch from created_at) * 1000)::float8 as created_ms, (extract(epoch from ended_at) * 1000)::float8 as ended_ms from runs where id = ${runId}`,
        z.object({ created_ms: z.number(), ended_ms: z.number() }),
      );
      expect(root.span).toMatchObject({ name: 'run word-split', traceId: runTraceId(runId), status: { code: 1 } });
      expect(root.span.parentSpanId ?? '').toBe('');
      expect(root.attrs).toMatchObject({ 'trellis.run_id': runId, 'trellis.mesh_id': meshId, 'trellis.mesh': 'word-split', 'trellis.status': 'done' });
      // From the run's creation to its end, to the millisecond.
      const ms = (nanos: string) => Number(BigInt(nanos) / 1_000_000n);
      expect(Math.abs(ms(root.span.startTimeUnixNano) - Math.floor(run?.created_ms ?? 0))).toBeLessThanOrEqual(1);
      expect(Math.abs(ms(root.span.endTimeUnixNano) - Math.floor(run?.ended_ms ?? 0))).toBeLessThanOrEqual(1);
      expect(received.filter((r) => r.span.spanId === root.span.spanId)).toHaveLength(1);

      const mine = received.filter((r) => r.attrs['trellis.run_id'] === runId && r !== root);
      expect(done.length).toBeGreaterThan(5);
      // Exactly one span per finished message, named after its member, with its attributes.
      expect(mine.map((r) => r.attrs['trellis.message_id']).sort()).toEqual(done.map((m) => m.id));
      for (const m of done) {
        const r = mine.find((x) => x.attrs['trellis.message_id'] === m.id);
        expect(r?.span.name).toBe(`step ${m.member}`);
        expect(r?.attrs).toMatchObject({ 'trellis.member': m.member, 'trellis.attempt': m.attempts });
        expect(['workflow', 'combine']).toContain(r?.attrs['trellis.kind']);
      }
      // One trace, whose id any process computes from the run id; every step hangs under the run's root.
      expect(new Set(mine.map((r) => r.span.traceId))).toEqual(new Set([runTraceId(runId)]));
      expect(new Set(mine.map((r) => r.span.parentSpanId))).toEqual(new Set([root.span.spanId]));
      // Inside the run's span.
      for (const r of mine) {
        expect(BigInt(r.span.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(root.span.startTimeUnixNano));
        expect(BigInt(r.span.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(root.span.endTimeUnixNano) + 1_000_000n);
      }
      expect(new Set(mine.map((r) => r.service))).toEqual(new Set(['trellis-test']));
    } finally {
      await tracing.close();
    }
  });
});
