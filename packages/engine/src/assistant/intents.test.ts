import { describe, expect, it } from 'vitest';
import { matchIntent } from './intents';

const RUN = '0190f5a2-1b2c-7d3e-8f40-123456789abc';

describe('matchIntent', () => {
  it.each([
    ['What broke today?', { kind: 'failures', window: 'today' }],
    ['which meshes failed this week and why', { kind: 'failures', window: 'week' }],
    ['any errors since yesterday?', { kind: 'failures', window: 'yesterday' }],
    [`Why did run ${RUN} fail?`, { kind: 'why', runId: RUN }],
    [`what went wrong with ${RUN.toUpperCase()}`, { kind: 'why', runId: RUN }],
    ['is anything stalled?', { kind: 'stalled' }],
    ['Are runs stuck?', { kind: 'stalled' }],
    ['were any messages lost?', { kind: 'lost', window: 'today' }],
    ['what is waiting for approval', { kind: 'approvals' }],
    ['yes', { kind: 'confirm' }],
    ['Yes, go ahead.', { kind: 'confirm' }],
    [`re-open run ${RUN}`, { kind: 'reopen', runIds: [RUN], version: 'pinned' }],
    ['reopen the failed runs of mesh word-split at member words on the latest version', { kind: 'reopen', runIds: [], meshName: 'word-split', member: 'words', version: 'latest' }],
    ['hello', { kind: 'help' }],
    ['yes but first tell me why', { kind: 'help' }],
  ])('%s', (q, want) => {
    expect(matchIntent(q)).toEqual(want);
  });
});
