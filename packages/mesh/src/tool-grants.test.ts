import { describe, expect, it } from 'vitest';
import { MeshSchema, type Mesh } from './schema';
import { toolNames } from './tool-grants';
import { validateMesh } from './validate';

const registered = new Set(['search', 'docs']);
const known = (name: string) => registered.has(name);

function mesh(members: unknown[]): Mesh {
  return MeshSchema.parse({ format: 'trellis.mesh/v1', name: 'tools', members, channels: [] });
}
const agent = (tools?: string[]) => ({ id: 'writer', kind: 'agent', head: true, model: 'demo', ...(tools ? { tools } : {}) });
const flow = (tools: string[]) => ({
  id: 'flow',
  kind: 'workflow',
  head: true,
  steps: [{ type: 'pass' }, { type: 'agent', model: 'demo', tools }],
});

const rows: { name: string; mesh: Mesh; findings: string[] }[] = [
  { name: 'no tools', mesh: mesh([agent()]), findings: [] },
  { name: 'registered tools', mesh: mesh([agent(['search', 'docs'])]), findings: [] },
  { name: 'an unregistered tool of an agent member', mesh: mesh([agent(['search', 'shell'])]), findings: ['writer:tools[1]:shell'] },
  { name: 'an unregistered tool of a workflow agent step', mesh: mesh([flow(['nope', 'docs'])]), findings: ['flow:steps[1].tools[0]:nope'] },
  { name: 'names are exact: case counts', mesh: mesh([agent(['Search'])]), findings: ['writer:tools[0]:Search'] },
];

describe('tool_missing', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const findings = validateMesh(row.mesh, undefined, known).filter((f) => f.code === 'tool_missing');
    expect(findings.map((f) => `${f.member}:${f.field}:${/"([^"]+)" \(/.exec(f.message)?.[1]}`)).toEqual(row.findings);
    for (const f of findings) {
      expect(f.severity).toBe('error');
      expect(f.message).toMatch(/which is not registered; an admin registers tool servers on the Tools page/);
    }
  });

  it('is not checked without a registry (the canvas, the CLI)', () => {
    expect(validateMesh(mesh([agent(['shell'])])).filter((f) => f.code === 'tool_missing')).toEqual([]);
  });

  it('lists every tool name a mesh names, once', () => {
    expect(toolNames(mesh([agent(['search', 'docs', 'search']), { ...flow(['docs', 'x']), id: 'f2', head: false }]))).toEqual(['search', 'docs', 'x']);
  });
});
