'use client';
/**
 * No silent loss: while the canvas has unsaved edits, leaving the page in the app (a link, Back)
 * asks first: save this mesh and leave, leave without saving, or stay. Closing the tab is left to
 * the browser's own `beforeunload` prompt.
 *
 * Links: a capturing click listener on the document stops same-origin anchors before Next's router
 * sees them. Back: a guard history entry (same address, `trellisLeaveGuard` in its state) sits on top
 * while dirty, so Back lands on the entry below it; the capturing `popstate` listener stops Next,
 * puts the guard back and asks. Forward history is dropped by the guard entry, so Forward cannot
 * leave silently either.
 */
import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { buttonClass } from '@/components/ui/button';

const GUARD = 'trellisLeaveGuard';

type Pending = { kind: 'link'; href: string } | { kind: 'back' };

interface Props {
  dirty: boolean;
  /** Saves the mesh being edited; resolves true when it was saved. */
  onSave: () => Promise<boolean>;
}

/** Installs the guard while `dirty` and shows the prompt when a navigation is stopped. */
export function LeaveGuard({ dirty, onSave }: Props) {
  const router = useRouter();
  const [pending, setPending] = useState<Pending | null>(null);
  const [saving, setSaving] = useState(false);
  const leaving = useRef(false);
  const unguarding = useRef(false);

  useEffect(() => {
    if (!dirty) {
      // Take the guard entry off again so Back needs one press.
      if (isGuard(window.history.state) && !leaving.current) {
        unguarding.current = true;
        window.history.back();
      }
      return;
    }
    if (!isGuard(window.history.state)) window.history.pushState({ [GUARD]: true }, '', window.location.href);

    function onClick(e: MouseEvent) {
      if (leaving.current || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = e.target instanceof Element ? e.target.closest('a[href]') : null;
      if (!(a instanceof HTMLAnchorElement) || (a.target && a.target !== '_self') || a.hasAttribute('download')) return;
      const url = new URL(a.href, window.location.href);
      if (url.origin !== window.location.origin || url.pathname === window.location.pathname) return;
      e.preventDefault();
      e.stopPropagation();
      setPending({ kind: 'link', href: `${url.pathname}${url.search}${url.hash}` });
    }
    function onPop(e: PopStateEvent) {
      if (leaving.current) return;
      e.stopImmediatePropagation();
      if (isGuard(e.state)) return;
      window.history.pushState({ [GUARD]: true }, '', window.location.href);
      setPending({ kind: 'back' });
    }
    document.addEventListener('click', onClick, true);
    window.addEventListener('popstate', onPop, true);
    return () => {
      document.removeEventListener('click', onClick, true);
      window.removeEventListener('popstate', onPop, true);
    };
  }, [dirty]);

  useEffect(() => {
    if (dirty) return;
    function onPop(e: PopStateEvent) {
      // The entry below the guard is the same page: nothing for the router to do.
      if (!unguarding.current) return;
      unguarding.current = false;
      e.stopImmediatePropagation();
    }
    window.addEventListener('popstate', onPop, true);
    return () => window.removeEventListener('popstate', onPop, true);
  }, [dirty]);

  function leave(p: Pending) {
    leaving.current = true;
    setPending(null);
    if (p.kind === 'link') router.push(p.href);
    else window.history.go(-2);
  }

  async function saveAndLeave(p: Pending) {
    // Saving makes the canvas clean; the guard entry stays until the navigation below uses it.
    leaving.current = true;
    setSaving(true);
    const ok = await onSave();
    setSaving(false);
    if (ok) return leave(p);
    leaving.current = false;
    setPending(null);
  }

  if (!pending) return null;
  return (
    <div className="fixed inset-0 z-50 flex items-center justify-center bg-slate-900/30">
      <div role="alertdialog" aria-modal="true" aria-labelledby="leave-title" aria-describedby="leave-detail"
        className="w-96 rounded-lg bg-white p-5 shadow-xl" data-testid="leave-prompt" data-leave={pending.kind}>
        <h2 id="leave-title" className="font-semibold">Leave with unsaved changes?</h2>
        <p id="leave-detail" className="mt-2 text-sm text-slate-600">
          This mesh has edits that are not saved. Save them as a new version of this mesh, leave without them, or stay.
        </p>
        <div className="mt-4 flex justify-end gap-2">
          <button type="button" className={buttonClass.ghost} onClick={() => setPending(null)} data-testid="leave-stay" autoFocus>Stay</button>
          <button type="button" className={buttonClass.ghost} onClick={() => leave(pending)} data-testid="leave-discard">Leave without saving</button>
          <button type="button" className={buttonClass.primary} disabled={saving} onClick={() => void saveAndLeave(pending)} data-testid="leave-save">
            {saving ? 'Saving…' : 'Save and leave'}
          </button>
        </div>
      </div>
    </div>
  );
}

function isGuard(state: unknown): boolean {
  return typeof state === 'object' && state !== null && (state as Record<string, unknown>)[GUARD] === true;
}
