import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MeshSchema, type Mesh } from '@trellis/mesh/schema';
import { flowToMesh, meshToFlow } from './mappers';

const wordSplit = MeshSchema.parse(
  JSON.parse(readFileSync(new URL('../../../../../examples/meshes/word-split.json', import.meta.url), 'utf8')),
);

const allKinds: Mesh = MeshSchema.parse({
  format: 'trellis.mesh/v1',
  name: 'claims-intake',
  description: 'Every kind of member',
  members: [
    { id: 'intake', kind: 'workflow', head: true, label: 'Intake', steps: [{ type: 'split', by: 'line' }, { type: 'map', fields: { claim_id: 'text' } }] },
    { id: 'classify', kind: 'agent', model: 'demo', instructions: 'Classify the claim.', temperature: 0.2 },
    { id: 'bill-lines', kind: 'mesh', mesh: 'bill-lines' },
    { id: 'records', kind: 'service', service: 'records-check', claimTimeoutSeconds: 30 },
    { id: 'assemble', kind: 'combine', key: 'claim_id', merge: { type: 'collect', into: 'parts' } },
  ],
  channels: [
    { from: 'intake', to: 'classify' },
    { id: 'medical', from: 'classify', to: 'bill-lines', when: "kind == 'medical bill' and amount >= 100" },
    { from: 'classify', to: 'records', when: 'kind != null' },
    { from: 'bill-lines', to: 'assemble' },
    { from: 'records', to: 'assemble' },
  ],
  layout: {
    intake: { x: 0, y: 0 },
    classify: { x: 0, y: 130.5 },
    'bill-lines': { x: -200, y: 260 },
    records: { x: 200, y: 260 },
    assemble: { x: 0, y: 390 },
  },
});

describe('mesh ⇄ React Flow mappers', () => {
  it.each([
    ['word-split example', wordSplit],
    ['every member kind', allKinds],
  ])('round-trips %s exactly', (_name, mesh) => {
    const { nodes, edges } = meshToFlow(mesh);
    expect(flowToMesh({ name: mesh.name, description: mesh.description }, nodes, edges)).toEqual(mesh);
  });

  it('draws one typed node per member and one edge per channel with test ids', () => {
    const { nodes, edges } = meshToFlow(allKinds);
    expect(nodes.map((n) => [n.id, n.type])).toEqual(allKinds.members.map((m) => [m.id, m.kind]));
    expect(edges.map((e) => [e.id, e.source, e.target])).toEqual([
      ['intake->classify', 'intake', 'classify'],
      ['medical', 'classify', 'bill-lines'],
      ['classify->records', 'classify', 'records'],
      ['bill-lines->assemble', 'bill-lines', 'assemble'],
      ['records->assemble', 'records', 'assemble'],
    ]);
    expect(edges[1]?.domAttributes).toEqual({ 'data-testid': 'edge-classify-bill-lines' });
  });

  it('keeps moved positions and never persists React Flow state', () => {
    const { nodes, edges } = meshToFlow(allKinds);
    const touched = nodes.map((n, i) =>
      i === 0 ? { ...n, position: { x: 42, y: 7 }, selected: true, dragging: true, measured: { width: 200, height: 80 } } : n,
    );
    const out = flowToMesh({ name: allKinds.name }, touched, edges.map((e) => ({ ...e, selected: true })));
    expect(out.layout?.intake).toEqual({ x: 42, y: 7 });
    const text = JSON.stringify(out);
    for (const key of ['selected', 'dragging', 'measured', 'domAttributes', 'sourceHandle']) expect(text).not.toContain(key);
  });

  it('follows reconnected edges and drops an emptied condition', () => {
    const { nodes, edges } = meshToFlow(allKinds);
    const rewired = edges.map((e) =>
      e.id === 'classify->records' && e.data ? { ...e, target: 'assemble', data: { channel: { ...e.data.channel, when: '  ' } } } : e,
    );
    const out = flowToMesh({ name: allKinds.name }, nodes, rewired);
    expect(out.channels[2]).toEqual({ from: 'classify', to: 'assemble' });
  });

  it('places members without a saved position beside the placed ones', () => {
    const { layout: _layout, ...noLayout } = allKinds;
    const partial = { ...noLayout, layout: { intake: { x: 10, y: 20 } } };
    const { nodes } = meshToFlow(partial);
    expect(nodes[0]?.position).toEqual({ x: 10, y: 20 });
    const others = nodes.slice(1).map((n) => n.position);
    expect(new Set(others.map((p) => `${p.x},${p.y}`)).size).toBe(others.length);
    expect(others.every((p) => p.x > 10)).toBe(true);
    expect(Object.keys(flowToMesh({ name: 'x' }, nodes, []).layout ?? {})).toEqual(allKinds.members.map((m) => m.id));
  });
});
