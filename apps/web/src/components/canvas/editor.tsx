'use client';
/** The mesh editor: palette, canvas, settings and checks, with save, import, export and run. */
import { ReactFlowProvider, useReactFlow } from '@xyflow/react';
import Link from 'next/link';
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
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
import { MemberSearch } from './member-search';
import { useClipboard, type ClipboardOutcome } from './use-clipboard';
import { useHistory } from './use-history';
import { useMeshEditor } from './use-mesh-editor';
import { useOpenLayout } from './use-open-layout';
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
  const { relayout, fit } = useOpenLayout(initial, editor, () => {
    saver.rebase();
    history.reset(editor.mesh);
  });

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
    // Members without positions are laid out as on open; then the whole mesh is fitted into view.
    relayout(res.mesh);
    setNotice({
      tone: 'info',
      message: `Imported ${file.name}${renamed ? ` (its name “${res.mesh.name}” was kept as “${editor.meta.name}”)` : ''}. Save to make it a new version.`,
    });
  }

  function onLayout() {
    // Fit once React Flow has the new positions.
    void editor.layout().then(fit);
  }

  const panel = useRef<HTMLElement>(null);
  /** Moves the focus to the first field of the side panel (once it shows the new selection). */
  const focusPanel = () => requestAnimationFrame(() => panel.current?.querySelector<HTMLElement>('input, textarea, select')?.focus());
  /** Escape in the side panel gives the focus back to what it edits on the canvas. */
  function onPanelKey(e: KeyboardEvent) {
    if (e.key !== 'Escape' || e.defaultPrevented) return;
    const s = editor.selection;
    const target = s?.kind === 'member' ? `.react-flow__node[data-id="${CSS.escape(s.id)}"]`
      : s?.kind === 'channel' ? `.react-flow__edge[data-id="${CSS.escape(s.edgeId)}"]` : '.react-flow__pane';
    document.querySelector<HTMLElement>(target)?.focus();
  }
  /** Enter on the selected member or channel (React Flow selects on the first Enter) opens its settings. */
  function onCanvasKey(e: KeyboardEvent) {
    if (e.key !== 'Enter' || !(e.target instanceof HTMLElement)) return;
    const item = e.target.closest('.react-flow__node.selected, .react-flow__edge.selected');
    if (item) focusPanel();
  }
  /** Search's jump: select the member, centre it at the current zoom, focus it. */
  function onJump(id: string) {
    select({ kind: 'member', id });
    const node = flow.getInternalNode(id);
    if (node) {
      const { x, y } = node.internals.positionAbsolute;
      void flow.setCenter(x + (node.measured.width ?? 0) / 2, y + (node.measured.height ?? 0) / 2, { zoom: flow.getZoom(), duration: 200 });
    }
    requestAnimationFrame(() => document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`)?.focus({ preventScroll: true }));
  }

  const nestedDefault = meshNames.find((n) => n !== editor.meta.name);
  /** Click-to-add puts the member below the others; keep everything in view. From the keyboard, its settings get the focus. */
  function onAdd(kind: MemberKind, byKeyboard: boolean) {
    editor.addMember(kind, undefined, nestedDefault);
    fit();
    if (byKeyboard) focusPanel();
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
          <div className="min-w-0 flex-1" onKeyDown={onCanvasKey}>
            <EditorCanvas editor={editor} readOnly={!canDesign} onDropKind={(kind, at) => editor.addMember(kind, at, nestedDefault)} />
          </div>
          <aside ref={panel} onKeyDown={onPanelKey} aria-label="Settings and checks"
            className="w-80 shrink-0 space-y-6 overflow-y-auto border-l border-slate-200 bg-white p-4" data-testid="side-panel">
            <fieldset disabled={!canDesign} className="contents" data-testid="side-panel-fields">
              <SidePanel editor={editor} meshNames={meshNames} />
            </fieldset>
            <FindingsPanel findings={validation.findings} checking={validation.checking} problem={validation.problem} onSelect={onSelectFinding} />
          </aside>
        </div>
        <MemberSearch nodes={editor.nodes} onJump={onJump} />
      </div>
    </CanvasOverlayContext.Provider>
  );
}
