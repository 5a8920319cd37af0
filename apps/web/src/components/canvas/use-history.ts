'use client';
/**
 * Undo and redo wired to the canvas: a snapshot is recorded whenever the mesh file changes while no
 * member is being dragged (a drag, or a multi-select move, becomes one step when it ends).
 */
import { useCallback, useEffect, useState } from 'react';
import type { Mesh } from '@trellis/mesh/schema';
import { redo, record, startHistory, undo, type History } from './history';

/** `canUndo`/`canRedo` for the toolbar, `undo`/`redo` that put the snapshot back through `restore`. */
export function useHistory(mesh: Mesh, dragging: boolean, restore: (mesh: Mesh) => void) {
  const [history, setHistory] = useState<History>(() => startHistory(mesh));
  useEffect(() => {
    if (dragging) return;
    const now = Date.now();
    setHistory((h) => record(h, mesh, now));
  }, [mesh, dragging]);

  const step = useCallback(
    (move: (h: History) => History) => {
      const next = move(history);
      if (next === history) return;
      setHistory(next);
      restore(next.present);
    },
    [history, restore],
  );

  return {
    canUndo: history.past.length > 0,
    canRedo: history.future.length > 0,
    undo: useCallback(() => step(undo), [step]),
    redo: useCallback(() => step(redo), [step]),
    /** Starts over from `mesh` with nothing to undo (the layout placed on open is not an edit). */
    reset: useCallback((mesh: Mesh) => setHistory(startHistory(mesh)), []),
  };
}
