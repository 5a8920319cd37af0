import { afterEach, describe, expect, it } from 'vitest';
import { loadWorkerEnv } from './env';

const saved = { pools: process.env.TRELLIS_POOLS, pool: process.env.TRELLIS_POOL };

afterEach(() => {
  for (const [k, v] of [['TRELLIS_POOLS', saved.pools], ['TRELLIS_POOL', saved.pool]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe('worker pools', () => {
  it('serves default unless told otherwise; --pool wins over TRELLIS_POOLS, which wins over TRELLIS_POOL', () => {
    delete process.env.TRELLIS_POOLS;
    delete process.env.TRELLIS_POOL;
    expect(loadWorkerEnv([]).pools).toEqual(['default']);
    process.env.TRELLIS_POOL = 'legacy';
    expect(loadWorkerEnv([]).pools).toEqual(['legacy']);
    process.env.TRELLIS_POOLS = 'default,agents';
    expect(loadWorkerEnv([]).pools).toEqual(['default', 'agents']);
    expect(loadWorkerEnv(['--pool', 'agents']).pools).toEqual(['agents']);
    expect(loadWorkerEnv(['--pool=*']).pools).toBe('saved');
  });

  it('names the setting that holds a bad pool', () => {
    process.env.TRELLIS_POOLS = 'agents/gpu';
    expect(() => loadWorkerEnv([])).toThrow(/TRELLIS_POOLS names "agents\/gpu"/);
    expect(() => loadWorkerEnv(['--pool'])).toThrow(/--pool needs a value/);
  });
});
