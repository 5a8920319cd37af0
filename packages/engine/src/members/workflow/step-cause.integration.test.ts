/**
 * Attacker trial: every failed workflow step read "The run failed in step code at s", an SQL, HTTP
 * or agent step too. The run's sentence now names the type of the step that failed.
 */
import { describe, expect, it } from 'vitest';
import { saveOrThrow, useWorlds } from '../../../test/harness';
import { startRun } from '../../runs/start-run';
import { waitForRun } from '../../runs/wait-run';

const flow = (steps: unknown[]) => ({ format: 'trellis.mesh/v1', name: 'step-cause', members: [{ id: 's', kind: 'workflow', head: true, steps }], channels: [] });

describe('the sentence of a run whose workflow step failed', () => {
  const worlds = useWorlds();

  it.each([
    ['sql', [{ type: 'sql', connection: 'trellis', query: 'select * from no_such_table' }], 'The run failed in the sql step at s: its SQL query failed'],
    ['http', [{ type: 'http', url: 'http://127.0.0.1:9/x', allowHosts: ['127.0.0.1:9'] }], 'The run failed in the http step at s: its http step was refused by the egress policy'],
    ['code', [{ type: 'pass' }, { type: 'code', source: 'throw new Error("no")' }], 'The run failed in the code step at s:'],
  ])('names the %s step', async (_, steps, sentence) => {
    const w = await worlds.open({ backoffMs: 50, attempts: 1 }, 'pglite');
    worlds.start(w, { pools: ['default'] });
    const meshId = await saveOrThrow(w, flow(steps));
    const { runId } = await startRun(w.engine, { meshId, input: { payload: {} } });
    const view = await waitForRun(w.engine.db, runId, { timeoutMs: 60_000 });
    expect(view.cause).toBe('step_code_failed');
    expect(view.causeMessage).toContain(sentence);
  }, 60_000);
});
