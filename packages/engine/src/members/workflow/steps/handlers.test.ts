import { describe, expect, it } from 'vitest';
import { HEAVY_STEP_TYPES, type Step } from '@trellis/mesh/schema';
import { isHeavyStep, STEPS } from './handlers';

describe('workflow step handlers', () => {
  it('run on a worker pool exactly the step types the mesh schema calls heavy', () => {
    const heavy = Object.entries(STEPS).filter(([, h]) => h.lane !== 'inline').map(([type]) => type);
    expect(heavy.sort()).toEqual([...HEAVY_STEP_TYPES].sort());
    for (const type of Object.keys(STEPS)) expect(isHeavyStep({ type } as Step), type).toBe((HEAVY_STEP_TYPES as readonly string[]).includes(type));
  });

  it('mark the steps that push a split frame', () => {
    expect(Object.entries(STEPS).filter(([, h]) => h.splits).map(([type]) => type).sort()).toEqual(['email', 'split']);
  });
});
