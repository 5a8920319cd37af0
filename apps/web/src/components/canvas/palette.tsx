'use client';
/** Every member kind (KIND_UI): drag one onto the canvas, or click it (or press Enter on it) to add it at a free spot. */
import type { DragEvent } from 'react';
import { MEMBER_KINDS, type MemberKind } from '@trellis/mesh/schema';
import { KIND_UI } from './kinds/kind-ui';

export const DRAG_TYPE = 'application/x-trellis-kind';

/** `onAdd` learns whether the button was pressed from the keyboard (Enter or Space), to move the focus on. */
export function Palette({ onAdd }: { onAdd: (kind: MemberKind, byKeyboard: boolean) => void }) {
  const onDragStart = (e: DragEvent<HTMLButtonElement>, kind: MemberKind) => {
    e.dataTransfer.setData(DRAG_TYPE, kind);
    e.dataTransfer.effectAllowed = 'move';
  };
  return (
    <aside className="w-44 shrink-0 space-y-2 border-r border-slate-200 bg-white p-3" data-testid="palette">
      <h2 className="text-xs font-semibold uppercase tracking-wide text-slate-500">Add a member</h2>
      <p className="text-xs text-slate-500">Drag onto the canvas, or click.</p>
      {MEMBER_KINDS.map((kind) => {
        const s = KIND_UI[kind].style;
        return (
          <button key={kind} type="button" draggable data-testid={`palette-${kind}`} title={s.hint}
            onDragStart={(e) => onDragStart(e, kind)} onClick={(e) => onAdd(kind, e.detail === 0)}
            className="flex w-full cursor-grab items-center gap-2 rounded-md border border-slate-200 bg-white px-2 py-1.5 text-left text-sm hover:border-slate-400 active:cursor-grabbing">
            <span className={`flex h-6 w-6 items-center justify-center rounded ${s.header}`} aria-hidden>{s.icon}</span>
            {s.label}
          </button>
        );
      })}
    </aside>
  );
}
