'use client';
/** The right column: the selected member's or channel's settings, else the mesh's description. */
import type { MeshEditor } from './use-mesh-editor';
import { ChannelPanel } from './panels/channel-panel';
import { Field } from './panels/field';
import { MemberPanel } from './panels/member-panel';
import { inputClass } from '@/components/ui/button';

export function SidePanel({ editor, meshNames }: { editor: MeshEditor; meshNames: readonly string[] }) {
  const { selection } = editor;
  if (selection?.kind === 'member') {
    const node = editor.nodes.find((n) => n.id === selection.id);
    if (node) {
      const taken = new Set(editor.nodes.map((n) => n.id));
      return (
        <MemberPanel member={node.data.member} takenIds={taken} meshNames={meshNames.filter((n) => n !== editor.meta.name)}
          onChange={editor.updateMember} onRemove={editor.removeMember} />
      );
    }
  }
  if (selection?.kind === 'channel') {
    const edge = editor.edges.find((e) => e.id === selection.edgeId);
    if (edge?.data) {
      return (
        <ChannelPanel channel={edge.data.channel} onChange={(c) => editor.updateChannel(edge.id, c)} onRemove={() => editor.removeChannel(edge.id)} />
      );
    }
  }
  return (
    <div className="space-y-3" data-testid="mesh-panel">
      <h2 className="text-sm font-semibold">Mesh</h2>
      <Field label="Description">
        <textarea className={`${inputClass} min-h-20`} value={editor.meta.description ?? ''} data-testid="mesh-description"
          onChange={(e) => editor.setMeta({ ...editor.meta, description: e.target.value.trim() === '' ? undefined : e.target.value })} />
      </Field>
      <p className="text-xs text-slate-500">
        Click a member or a channel to edit it. Connect a member&apos;s bottom handle to another&apos;s top handle to add a channel.
        Select and press Delete to remove.
      </p>
    </div>
  );
}
