'use client';
import { useRef, type ReactNode } from 'react';
import { buttonClass } from '@/components/ui/button';

interface Props {
  name: string;
  version: number;
  dirty: boolean;
  saving: boolean;
  onSave: () => void;
  onExport: () => void;
  onImport: (file: File) => void;
  onLayout: () => void;
  /** Undo and redo over every canvas edit (see history.ts). */
  history: { canUndo: boolean; canRedo: boolean; undo: () => void; redo: () => void };
  /** False for roles that may not edit meshes: only export (and what `children` offers) is shown. */
  canEdit: boolean;
  children?: ReactNode;
}

/** The mesh's name and version, and what can be done with it: save, export, import, tidy, run. */
export function Toolbar({ name, version, dirty, saving, onSave, onExport, onImport, onLayout, history, canEdit, children }: Props) {
  const file = useRef<HTMLInputElement>(null);
  return (
    <div className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-white px-4 py-2" data-testid="toolbar">
      <h1 className="font-semibold" data-testid="mesh-name">{name}</h1>
      <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600" data-testid="mesh-version">v{version}</span>
      {dirty ? (
        <span className="text-xs text-amber-700" data-testid="mesh-dirty">● unsaved changes</span>
      ) : (
        <span className="text-xs text-slate-500" data-testid="mesh-clean">saved</span>
      )}
      <div className="ml-auto flex flex-wrap items-center gap-2">
        {!canEdit && <span className="text-xs text-slate-500" data-testid="mesh-read-only">read only for your role</span>}
        {canEdit && (
          <>
            <button type="button" className={buttonClass.ghost} onClick={history.undo} disabled={!history.canUndo}
              aria-label="Undo" title="Undo (Ctrl+Z)" data-testid="mesh-undo">↶ Undo</button>
            <button type="button" className={buttonClass.ghost} onClick={history.redo} disabled={!history.canRedo}
              aria-label="Redo" title="Redo (Shift+Ctrl+Z or Ctrl+Y)" data-testid="mesh-redo">↷ Redo</button>
            <button type="button" className={buttonClass.ghost} onClick={onLayout} data-testid="mesh-layout">Auto-layout</button>
            <button type="button" className={buttonClass.ghost} onClick={() => file.current?.click()} data-testid="mesh-import-canvas">Import</button>
            <input ref={file} type="file" accept=".json,application/json" className="hidden" data-testid="mesh-import-canvas-file"
              onChange={(e) => {
                const f = e.target.files?.[0];
                e.target.value = '';
                if (f) onImport(f);
              }} />
          </>
        )}
        <button type="button" className={buttonClass.ghost} onClick={onExport} data-testid="mesh-export">Export</button>
        {canEdit && (
          <button type="button" className={buttonClass.primary} disabled={!dirty || saving} onClick={onSave} data-testid="mesh-save">
            {saving ? 'Saving…' : 'Save'}
          </button>
        )}
        <span className="mx-1 h-6 w-px bg-slate-200" aria-hidden />
        {children}
      </div>
    </div>
  );
}
