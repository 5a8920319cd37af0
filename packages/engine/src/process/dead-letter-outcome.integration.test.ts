/**
 * What `deadLetter` reports, which its callers act on (the worker stops the run's other leases on
 * true, the relay counts its dead letters): true only when this call set the message aside.
 */
import { describe, expect, it } from 'vitest';
import { saveOrThrow, useWorlds } from '../../test/harness';
import { getRun } from '../runs/get-run';
import { listMessages } from '../runs/list-messages';
import { startRun } from '../runs/start-run';
import { deadLetter } from './dead-letter';

const ONE = {
  format: 'trellis.mesh/v1',
  name: 'one',
  members: [{ id: 'head', kind: 'workflow', head: true, label: 'First step', steps: [{ type: 'pass' }] }],
  channels: [],
};

describe('deadLetter', () => {
  const worlds = useWorlds();

  it('says true when it set the message aside and failed the run, false for a finished or unknown message', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, ONE);
    // No workers: the head's message stays pending until this test decides its fate.
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'x' } });
    const [pending] = (await listMessages(world.engine.db, { runId })).items;
    expect(pending?.status).toBe('pending');
    const id = pending?.id ?? '';

    expect(await deadLetter(world.engine, id, new Error('gave up'))).toBe(true);
    const run = await getRun(world.engine.db, runId);
    expect(run).toMatchObject({ status: 'failed', cause: 'step_code_failed' });
    expect(run?.causeMessage).toContain('First step');
    expect(run?.causeMessage).toContain('gave up (after 1 attempt)');
    expect((await listMessages(world.engine.db, { runId })).items.map((m) => m.status)).toEqual(['dead']);

    expect(await deadLetter(world.engine, id, new Error('again'))).toBe(false);
    expect(await deadLetter(world.engine, 'no-such-message', new Error('x'))).toBe(false);
  }, 60_000);
});
