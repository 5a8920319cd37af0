'use client';
/** The editor's keyboard shortcuts; none fires while the focus is in a text field. */
import { useEffect } from 'react';

/** What each shortcut does; an absent handler leaves the key to the browser. */
export interface ShortcutHandlers {
  undo?: () => void;
  redo?: () => void;
  copy?: () => void;
  paste?: () => void;
  duplicate?: () => void;
}

/** True when typing goes to `target`: inputs, textareas, selects and editable content. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/**
 * Ctrl/Cmd+Z undo, Shift+Ctrl/Cmd+Z and Ctrl+Y redo, Ctrl/Cmd+C copy, Ctrl/Cmd+V paste, Ctrl/Cmd+D
 * duplicate. Copy is left to the browser while text is selected on the page.
 */
export function useShortcuts(handlers: ShortcutHandlers): void {
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || isTyping(e.target)) return;
      const key = e.key.toLowerCase();
      const action =
        key === 'z' ? (e.shiftKey ? handlers.redo : handlers.undo)
        : key === 'y' && !e.shiftKey ? handlers.redo
        : key === 'c' && !e.shiftKey && !hasTextSelection() ? handlers.copy
        : key === 'v' && !e.shiftKey ? handlers.paste
        : key === 'd' && !e.shiftKey ? handlers.duplicate
        : undefined;
      if (!action) return;
      e.preventDefault();
      action();
    }
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [handlers]);
}

function hasTextSelection(): boolean {
  const s = window.getSelection();
  return s !== null && !s.isCollapsed && s.toString().trim() !== '';
}
