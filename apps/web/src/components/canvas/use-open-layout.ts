'use client';
/**
 * Layout when a mesh opens or is imported: once React Flow has measured every member, members
 * without saved positions are auto-laid out (a saved auto-layout gets its channel routes back), and
 * the whole mesh is fitted into view.
 */
import { useReactFlow } from '@xyflow/react';
import { useCallback, useEffect, useState } from 'react';
import type { Mesh } from '@trellis/mesh/schema';
import type { MeshEditor } from './use-mesh-editor';

/** How the canvas fits the mesh into view: all of it, never zoomed in past 100 %. */
export const FIT = { padding: 0.15, maxZoom: 1, minZoom: 0.1 } as const;

/** True when some member of `mesh` has no position in its layout. */
export function hasUnplaced(mesh: Mesh): boolean {
  return mesh.members.some((m) => !mesh.layout?.[m.id]);
}

/**
 * Runs the open-time layout; `onPlaced` is called once the canvas shows positions the open placed
 * (so they can be taken as saved, not as an edit). `relayout(mesh)` repeats the layout after an import
 * replaced the canvas with `mesh` (an edit: `onPlaced` is not called).
 */
export function useOpenLayout(initial: Mesh, editor: MeshEditor, onPlaced: () => void) {
  const [pending, setPending] = useState<{ unplaced: boolean; opening: boolean } | null>(() => ({ unplaced: hasUnplaced(initial), opening: true }));
  const [placed, setPlaced] = useState(false);
  const fit = useFitAfterRender();
  const measured = editor.nodes.every((n) => n.measured?.width !== undefined && n.measured.height !== undefined);
  const { layoutOnOpen } = editor;
  useEffect(() => {
    if (!pending || !measured) return;
    setPending(null);
    void layoutOnOpen(pending.unplaced).then((moved) => {
      if (moved && pending.opening) setPlaced(true);
      fit();
    });
  }, [pending, measured, layoutOnOpen, fit]);
  useEffect(() => {
    if (!placed) return;
    setPlaced(false);
    onPlaced();
  }, [placed, onPlaced]);
  return { relayout: useCallback((mesh: Mesh) => setPending({ unplaced: hasUnplaced(mesh), opening: false }), []), fit };
}

/**
 * `fit()` fits the whole mesh into view after the next render: by then React Flow's store (a child,
 * whose effects run first) holds the positions just set, which a fit in the same tick would miss.
 */
export function useFitAfterRender(): () => void {
  const flow = useReactFlow();
  const [asked, setAsked] = useState(0);
  useEffect(() => {
    if (asked > 0) void flow.fitView(FIT);
  }, [asked, flow]);
  return useCallback(() => setAsked((n) => n + 1), []);
}
