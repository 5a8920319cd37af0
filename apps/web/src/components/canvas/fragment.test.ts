import { describe, expect, it } from 'vitest';
import { parseMeshFile } from '@trellis/mesh/parse';
import { MeshSchema, type Mesh } from '@trellis/mesh/schema';
import { copyFragment, fragmentText, PASTE_OFFSET, pasteFragment, readFragment } from './fragment';

const source: Mesh = MeshSchema.parse({
  format: 'trellis.mesh/v1',
  name: 'src',
  members: [
    { id: 'intake', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
    { id: 'classify', kind: 'agent', model: 'demo', instructions: 'Classify.', temperature: 0.2 },
    { id: 'records', kind: 'service', service: 'records-check', claimTimeoutSeconds: 30 },
  ],
  channels: [
    { from: 'intake', to: 'classify' },
    { id: 'check', from: 'classify', to: 'records', when: "kind == 'bill'" },
  ],
  layout: { intake: { x: 0, y: 0 }, classify: { x: 0, y: 130 }, records: { x: 100, y: 260 } },
});

describe('copy and paste fragments', () => {
  it('copies the members and only the channels between them', () => {
    const f = copyFragment(source, ['classify', 'records', 'nope']);
    expect(f?.members.map((m) => m.id)).toEqual(['classify', 'records']);
    expect(f?.channels).toEqual([{ id: 'check', from: 'classify', to: 'records', when: "kind == 'bill'" }]);
    expect(f && parseMeshFile(fragmentText(f)).ok).toBe(true);
    expect(copyFragment(source, ['nope'])).toBeNull();
  });

  it('pastes into the same mesh with fresh ids, re-pointed channels, kept settings, offset, no second head', () => {
    const f = copyFragment(source, ['intake', 'classify', 'records']) as Mesh;
    const { mesh, ids } = pasteFragment(source, f);
    expect(ids).toEqual(['intake-copy', 'classify-copy', 'records-copy']);
    expect(mesh.members).toHaveLength(6);
    expect(mesh.members.filter((m) => m.head)).toHaveLength(1);
    expect(mesh.members.find((m) => m.id === 'classify-copy')).toMatchObject({ kind: 'agent', instructions: 'Classify.', temperature: 0.2 });
    expect(mesh.channels.slice(2)).toEqual([
      { from: 'intake-copy', to: 'classify-copy' },
      { id: 'check-copy', from: 'classify-copy', to: 'records-copy', when: "kind == 'bill'" },
    ]);
    expect(mesh.layout?.['records-copy']).toEqual({ x: 100 + PASTE_OFFSET, y: 260 + PASTE_OFFSET });
    expect(mesh.layout?.records).toEqual({ x: 100, y: 260 });
    // Pasting again does not reuse the first copies' ids.
    const again = pasteFragment(mesh, f);
    expect(again.ids).toEqual(['intake-copy-2', 'classify-copy-2', 'records-copy-2']);
    expect(new Set(again.mesh.members.map((m) => m.id)).size).toBe(9);
    expect(again.mesh.channels.at(-1)?.id).toBe('check-copy-2');
  });

  it('pastes into another mesh keeping ids that are free there only when they are fresh', () => {
    const other: Mesh = MeshSchema.parse({ format: 'trellis.mesh/v1', name: 'other', members: [{ id: 'classify', kind: 'workflow', steps: [{ type: 'pass' }] }], channels: [] });
    const read = readFragment(fragmentText(copyFragment(source, ['classify', 'records']) as Mesh));
    if (!read.ok) throw new Error(read.message);
    const { mesh } = pasteFragment(other, read.fragment);
    expect(mesh.name).toBe('other');
    expect(mesh.members.map((m) => m.id)).toEqual(['classify', 'classify-copy', 'records-copy']);
    expect(mesh.channels).toEqual([{ id: 'check-copy', from: 'classify-copy', to: 'records-copy', when: "kind == 'bill'" }]);
  });

  it('refuses clipboard text that is not a mesh fragment, saying why', () => {
    const empty = readFragment('');
    expect(!empty.ok && empty.message).toContain('empty');
    const notJson = readFragment('hello world');
    expect(notJson.ok).toBe(false);
    expect(!notJson.ok && notJson.message).toContain('not valid JSON');
    const badMember = readFragment(JSON.stringify({ format: 'trellis.mesh/v1', name: 'x', members: [{ id: 'a', kind: 'robot' }], channels: [] }));
    expect(badMember.ok).toBe(false);
    expect(readFragment(JSON.stringify({ format: 'trellis.mesh/v1', name: 'x', members: [], channels: [] })).ok).toBe(false);
  });
});
