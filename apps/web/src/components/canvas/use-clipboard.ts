'use client';
/**
 * Copy, paste and duplicate on the canvas. The clipboard holds a mesh-file fragment as JSON text,
 * written through `navigator.clipboard`; when the browser refuses it (no permission, no secure
 * context) the text stays in memory for this tab, so pasting into another mesh still works.
 */
import { useCallback } from 'react';
import type { Mesh } from '@trellis/mesh/schema';
import { copyFragment, fragmentText, pasteFragment, readFragment, type Pasted } from './fragment';

let memory = '';

async function writeClipboard(text: string): Promise<void> {
  memory = text;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // The in-memory copy above is the fallback.
  }
}

async function readClipboard(): Promise<string> {
  try {
    return await navigator.clipboard.readText();
  } catch {
    return memory;
  }
}

/** What a clipboard action did, for the editor's notice line. */
export type ClipboardOutcome = { ok: true; message: string } | { ok: false; message: string };

/**
 * `copy(ids)` puts those members (and the channels between them) on the clipboard; `paste()` reads it
 * back, validates it as a mesh file and hands the result to `apply`; `duplicate(ids)` does both without
 * touching the clipboard. Nothing changes on the canvas when the clipboard is refused.
 */
export function useClipboard(mesh: Mesh, apply: (pasted: Pasted) => void) {
  const copy = useCallback(
    async (ids: readonly string[]): Promise<ClipboardOutcome | null> => {
      const fragment = copyFragment(mesh, ids);
      if (!fragment) return null;
      await writeClipboard(fragmentText(fragment));
      return { ok: true, message: `Copied ${count(fragment.members.length, 'member')} and ${count(fragment.channels.length, 'channel')}.` };
    },
    [mesh],
  );

  const paste = useCallback(async (): Promise<ClipboardOutcome> => {
    const read = readFragment(await readClipboard());
    if (!read.ok) return { ok: false, message: `Nothing was pasted. ${read.message}` };
    const pasted = pasteFragment(mesh, read.fragment);
    apply(pasted);
    return { ok: true, message: `Pasted ${count(pasted.ids.length, 'member')}.` };
  }, [mesh, apply]);

  const duplicate = useCallback(
    (ids: readonly string[]): boolean => {
      const fragment = copyFragment(mesh, ids);
      if (!fragment) return false;
      apply(pasteFragment(mesh, fragment));
      return true;
    },
    [mesh, apply],
  );

  return { copy, paste, duplicate };
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
