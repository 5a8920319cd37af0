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
    ['why did run 01a22826 fail?', { kind: 'why', runId: '01a22826' }],
    ['Why did run 01A22826…1CF3 fail?', { kind: 'why', runId: '01a22826…1cf3' }],
    ['what went wrong with 01a22826...1cf3', { kind: 'why', runId: '01a22826…1cf3' }],
    ['why did run abcdef fail', { kind: 'why', runId: 'abcdef' }],
    ['re-open run 01a228 and 0190f5a2…9abc', { kind: 'reopen', runIds: ['01a228', '0190f5a2…9abc'], version: 'pinned' }],
    // Too short, or a plain word made of hex letters: not a run reference.
    ['why did run 01a22 fail?', { kind: 'failures', window: 'today' }],
    ['what failed in the last decade', { kind: 'failures', window: 'today' }],
    ['why did 100000 runs fail since 2026-03-02?', { kind: 'failures', window: 'today' }],
    ['why did run 01922826 fail', { kind: 'why', runId: '01922826' }],
    [`mark run ${RUN} urgent`, { kind: 'urgent', runIds: [RUN] }],
    ['Make run 01a22826…1cf3 urgent please', { kind: 'urgent', runIds: ['01a22826…1cf3'] }],
    ['mark the runs of mesh word-split urgent', { kind: 'urgent', runIds: [], meshName: 'word-split' }],
    ['expedite mesh claims', { kind: 'urgent', runIds: [], meshName: 'claims' }],
    // Asking about urgency is a question, not an order.
    [`why is run ${RUN} marked urgent?`, { kind: 'why', runId: RUN }],
    [`why did someone mark run ${RUN} urgent?`, { kind: 'why', runId: RUN }],
    ['how do I mark a run urgent?', { kind: 'help' }],
    ['is anything urgent stuck?', { kind: 'stalled' }],
    ['no', { kind: 'cancel' }],
    ['No thanks.', { kind: 'cancel' }],
    ['cancel', { kind: 'cancel' }],
    ['no, why did it fail', { kind: 'failures', window: 'today' }],
    ['hello', { kind: 'help' }],
    ['yes but first tell me why', { kind: 'help' }],
  ])('%s', (q, want) => {
    expect(matchIntent(q)).toEqual(want);
  });
});
