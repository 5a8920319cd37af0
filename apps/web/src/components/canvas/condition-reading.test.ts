import { describe, expect, it } from 'vitest';
import { MeshSchema } from '@trellis/mesh/schema';
import { validateMesh } from '@trellis/mesh/validate';
import { readCondition } from './condition-reading';

function findingFor(when: string): string {
  const mesh = MeshSchema.parse({
    format: 'trellis.mesh/v1',
    name: 'm',
    members: [{ id: 'a', kind: 'workflow', head: true, steps: [{ type: 'pass' }] }, { id: 'b', kind: 'workflow', steps: [{ type: 'pass' }] }],
    channels: [{ from: 'a', to: 'b', when }],
  });
  const found = validateMesh(mesh).find((f) => f.code === 'condition_invalid');
  if (!found) throw new Error(`no condition_invalid finding for ${when}`);
  return found.message;
}

describe('readCondition (channel panel)', () => {
  it.each([
    ['status ==', 10],
    ["kind == 'medical bill' amount >= 100", 24],
    ['(a == 1', 8],
    ['a = 1', 3],
  ])('%j: the panel and the findings list name the same 1-based character (%i)', (when, character) => {
    const reading = readCondition(when);
    if (reading.kind !== 'error') throw new Error('expected an error reading');
    expect(reading.where).toBe(`at character ${character}`);
    expect(reading.position).toBe(character - 1);
    expect(findingFor(when)).toContain(`at character ${character}`);
    expect(reading.message).not.toContain(`at character ${character}`);
  });

  it('reads a valid condition and an empty one', () => {
    expect(readCondition("a == 1 or b == 'x' and c > 2")).toEqual({ kind: 'ok', grouping: "a == 1 or (b == 'x' and c > 2)" });
    expect(readCondition('(a == 1 or b == 2) and c > 2')).toEqual({ kind: 'ok', grouping: '(a == 1 or b == 2) and c > 2' });
    expect(readCondition('   ')).toEqual({ kind: 'none' });
  });
});
