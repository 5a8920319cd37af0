import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { licensesText, WORD_SPLIT, openWorld, saveOrThrow, type TestWorld, expectExactDone } from '../../test/harness';
import { startInProcess } from '../runtime/in-process';
import { getRun } from './get-run';
import { startRun } from './start-run';
import { waitForRun } from './wait-run';

const enc = new TextEncoder();

/** Edge inputs: each must come back byte for byte, and its run must end done. */
const EDGES: [string, Uint8Array][] = [
  ['empty document', new Uint8Array()],
  ['whitespace only', enc.encode(' \t \n\n  \r\n')],
  ['pages without words', enc.encode('\f\f  \f\n\f')],
  ['a single form feed', enc.encode('\f')],
  ['CRLF lines', enc.encode('first line\r\nsecond  line\r\n\r\nlast')],
  ['unicode', enc.encode('\uFEFFcafé naïve 日本語 テキスト 🎉🎉 e\u0301\u00a0nbsp\u2003em\n')],
  ['no trailing newline', enc.encode('one two three')],
  ['leading whitespace', enc.encode('   lead\n\tindent\f  page two')],
];

describe.each(['postgres', 'pglite'] as const)('word-split on %s', (kind) => {
  let world: TestWorld;
  let meshId: string;
  let runtime: { close(): Promise<void> };

  beforeAll(async () => {
    world = await openWorld(kind);
    meshId = await saveOrThrow(world, WORD_SPLIT);
    runtime = startInProcess(world.engine, { concurrency: 200 });
  });
  afterAll(async () => {
    await runtime.close();
    await world.close();
  });

  async function roundTrip(bytes: Uint8Array) {
    const { runId } = await startRun(world.engine, { meshId, input: { bytes } });
    // A deadline, not a speed target: 17,721 words on the embedded database of a loaded machine can take minutes.
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 240_000 });
    return view;
  }

  it.each(EDGES)('%s round-trips exactly and ends done', async (_name, bytes) => {
    const view = await roundTrip(bytes);
    await expectExactDone(world.engine.db, view.id);
    expect(view.counts.published).toBe(view.counts.done);
    expect(view.counts.deadLettered + view.counts.lost).toBe(0);
    const text = (view.output as { text?: unknown }).text;
    expect(typeof text).toBe('string');
    expect(Buffer.from(text as string, 'utf8').equals(Buffer.from(bytes))).toBe(true);
  });

  it('the empty document fires each join once with the empty set', async () => {
    const view = await roundTrip(new Uint8Array());
    // head → void → void → join-words (fires empty) → join-lines → join-pages (fires empty)
    expect(view.memberCounts['join-words']?.published).toBe(1);
    expect(view.memberCounts['join-pages']?.published).toBe(1);
    expect(view.output).toEqual({ text: '' });
  });

  it('licenses.txt (17,721 words) round-trips byte for byte with every message done', { timeout: 300_000 }, async () => {
    const view = await roundTrip(licensesText());
    await expectExactDone(world.engine.db, view.id);
    expect(Buffer.from((view.output as { text: string }).text, 'utf8').equals(licensesText())).toBe(true);
    expect(view.counts.published).toBeGreaterThan(17_721 + 2_207);
    expect(view.counts.done).toBe(view.counts.published);
    expect(view.counts.delivered).toBe(view.counts.published);
    const again = await getRun(world.engine.db, view.id);
    expect(again?.memberCounts['join-pages']?.done).toBe(15);
  });
});
