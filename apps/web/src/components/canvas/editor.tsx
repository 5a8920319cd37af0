'use client';
/** The mesh editor: palette, canvas, settings and checks, with save, import, export and run. */
import { ReactFlowProvider, useReactFlow } from '@xyflow/react';
import Link from 'next/link';
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Finding } from '@trellis/mesh/findings';
import { channelName, type MemberKind, type Mesh } from '@trellis/mesh/schema';
import { useCan } from '@/components/ui/access';
import type { FindingTarget } from '@/components/ui/findings-list';
import { EditorCanvas } from './editor-canvas';
import { downloadMesh, readMeshFile } from './file-io';
import { FindingsPanel } from './findings-panel';
import { Notices, type Notice } from './notices';
import { CanvasOverlayContext, groupFindings, type CanvasOverlay } from './overlay';
import { Palette } from './palette';
import { RunStarter } from './run-starter';
import { SidePanel } from './side-panel';
import { Toolbar } from './toolbar';
import type { Pasted } from './fragment';
import { LeaveGuard } from './leave-guard';
import { useClipboard, type ClipboardOutcome } from './use-clipboard';
import { useHistory } from './use-history';
import { useMeshEditor } from './use-mesh-editor';
import { useShortcuts } from './use-shortcuts';
import { useSave } from './use-save';
import { useValidation } from './use-validation';

interface Props {
  meshId: string;
  version: number;
  initial: Mesh;
  meshNames: readonly string[];
  onReload: () => Promise<void>;
}

export function Editor(props: Props) {
  return (
    <ReactFlowProvider>
      <EditorInner {...props} />
    </ReactFlowProvider>
  );
}

function EditorInner({ meshId, version, initial, meshNames, onReload }: Props) {
  const editor = useMeshEditor(initial);
  const validation = useValidation(editor.mesh);
  const saver = useSave(meshId, version, editor.mesh);
  const [notice, setNotice] = useState<Notice | null>(null);
  const { select, edges, replace } = editor;
  const flow = useReactFlow();
  // Operators and viewers see the mesh as it is: no palette, no save, settings read only.
  const canDesign = useCan('design');
  const canRun = useCan('run');
  const history = useHistory(editor.mesh, editor.nodes.some((n) => n.dragging), replace);
  const applyPaste = useCallback((p: Pasted) => replace(p.mesh, p.ids), [replace]);
  const clipboard = useClipboard(editor.mesh, applyPaste);
  const selectedIds = useMemo(() => editor.nodes.filter((n) => n.selected).map((n) => n.id), [editor.nodes]);
  const shortcuts = useMemo(() => {
    const tell = (o: ClipboardOutcome | null) => o && setNotice({ tone: o.ok ? 'info' : 'error', message: o.message });
    const copy = () => void clipboard.copy(selectedIds).then(tell);
    if (!canDesign) return { copy };
    return {
      copy,
      undo: history.undo,
      redo: history.redo,
      paste: () => void clipboard.paste().then(tell),
      duplicate: () => void clipboard.duplicate(selectedIds),
    };
  }, [canDesign, clipboard, history.undo, history.redo, selectedIds]);
  useShortcuts(shortcuts);

  const overlay: CanvasOverlay = useMemo(
    () => ({ ...groupFindings(validation.findings), readOnly: !canDesign, onChannelClick: (edgeId) => select({ kind: 'channel', edgeId }) }),
    [validation.findings, select, canDesign],
  );

  const onSelectFinding = useCallback(
    (t: FindingTarget) => {
      if ('member' in t) return select({ kind: 'member', id: t.member });
      const edge = edges.find((e) => e.data && channelName(e.data.channel) === t.channel);
      if (edge) select({ kind: 'channel', edgeId: edge.id });
    },
    [select, edges],
  );

  useEffect(() => {
    if (!saver.dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [saver.dirty]);

  async function onImport(file: File) {
    const res = await readMeshFile(file);
    if (!res.ok) return setNotice({ tone: 'error', message: `${file.name} was refused; nothing on the canvas changed.`, findings: res.findings });
    const renamed = res.mesh.name !== editor.meta.name;
    editor.replace({ ...res.mesh, name: editor.meta.name });
    requestAnimationFrame(() => void flow.fitView({ padding: 0.2, maxZoom: 1 }));
    setNotice({
      tone: 'info',
      message: `Imported ${file.name}${renamed ? ` (its name “${res.mesh.name}” was kept as “${editor.meta.name}”)` : ''}. Save to make it a new version.`,
    });
  }

  function onLayout() {
    editor.layout();
    // Fit once React Flow has the new positions.
    requestAnimationFrame(() => void flow.fitView({ padding: 0.2, maxZoom: 1, duration: 200 }));
  }

  const nestedDefault = meshNames.find((n) => n !== editor.meta.name);
  /** Click-to-add puts the member below the others; keep everything in view. */
  function onAdd(kind: MemberKind) {
    editor.addMember(kind, undefined, nestedDefault);
    requestAnimationFrame(() => void flow.fitView({ padding: 0.2, maxZoom: 1, duration: 200 }));
  }
  const onRunRefused = useCallback((r: { message: string; findings: Finding[] } | null) => {
    setNotice(r ? { tone: 'error', message: `The run did not start: ${r.message}`, findings: r.findings } : null);
  }, []);

  return (
    <CanvasOverlayContext.Provider value={overlay}>
      <div className="flex h-[calc(100vh-3rem)] flex-col" data-testid="mesh-editor">
        <Toolbar name={editor.meta.name} version={saver.baseVersion} dirty={saver.dirty} saving={saver.saving} canEdit={canDesign}
          onSave={() => void saver.save()} onExport={() => downloadMesh(editor.mesh)} onImport={(f) => void onImport(f)} onLayout={onLayout} history={history}>
          <Link href={`/meshes/${meshId}/versions`} className="text-sm text-sky-700 hover:underline" data-testid="mesh-history">History</Link>
          {canRun && <RunStarter meshId={meshId} version={saver.baseVersion} dirty={saver.dirty} onRefused={onRunRefused} />}
        </Toolbar>
        {canDesign && <LeaveGuard dirty={saver.dirty} onSave={saver.save} />}
        <Notices save={saver.outcome} notice={notice} onDismissSave={saver.dismiss} onDismissNotice={() => setNotice(null)}
          onReload={() => void onReload()} onExport={() => downloadMesh(editor.mesh)} />
        <div className="flex min-h-0 flex-1">
          {canDesign && <Palette onAdd={onAdd} />}
          <div className="min-w-0 flex-1">
            <EditorCanvas editor={editor} readOnly={!canDesign} onDropKind={(kind, at) => editor.addMember(kind, at, nestedDefault)} />
          </div>
          <aside className="w-80 shrink-0 space-y-6 overflow-y-auto border-l border-slate-200 bg-white p-4" data-testid="side-panel">
            <fieldset disabled={!canDesign} className="contents" data-testid="side-panel-fields">
              <SidePanel editor={editor} meshNames={meshNames} />
            </fieldset>
            <FindingsPanel findings={validation.findings} checking={validation.checking} problem={validation.problem} onSelect={onSelectFinding} />
          </aside>
        </div>
      </div>
    </CanvasOverlayContext.Provider>
  );
}
