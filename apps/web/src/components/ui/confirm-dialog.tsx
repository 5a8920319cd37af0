'use client';
/**
 * A confirmation asked in a modal dialog, shared by every "are you sure?" in the app (cancel a
 * run, mark runs urgent, re-open runs). It is the browser's own modal `<dialog>` (the page behind is inert and
 * Tab stays inside) with role=alertdialog, labelled by its title and described by its question.
 * Focus goes to its first field or, without one, to the button that keeps things as they are;
 * Escape and that button cancel (not while the action is under way); closing gives focus back to
 * what had it before (the button that opened it).
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { buttonClass } from './button';

export interface ConfirmDialogProps {
  /** The dialog's heading, e.g. `Mark 2 runs urgent?`. */
  title: string;
  /** What confirming does, in plain words (the dialog's description). */
  children: ReactNode;
  /** Fields asked along with the confirmation (a reason), between the question and the buttons. */
  fields?: ReactNode;
  /** The confirm button's words, and its words while the action is under way. */
  confirmLabel: string;
  busyLabel: string;
  /** The cancel button's words (`Keep it running`). */
  cancelLabel: string;
  /** `danger` for actions that stop or remove something. */
  tone?: 'primary' | 'danger';
  /** True while the action is under way: both buttons are disabled and Escape does nothing. */
  busy: boolean;
  /** False while there is nothing to confirm yet (a preview still loading): the confirm button is disabled. */
  ready?: boolean;
  /** Why the action failed or was refused, shown as an alert; null or undefined for none. */
  error?: string | null | undefined;
  onConfirm: () => void;
  onCancel: () => void;
  /** Test ids: `<testId>-confirm` on the dialog, `<testId>-yes` and `<testId>-no` on its buttons. */
  testId: string;
}

/** The modal confirmation; render it while asking, unmount it to close. */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const { title, children, fields, confirmLabel, busyLabel, cancelLabel, tone = 'primary', busy, ready = true, error, onConfirm, onCancel, testId } = props;
  const ref = useRef<HTMLDialogElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    (dialog.querySelector<HTMLElement>('input, textarea, select') ?? keep.current)?.focus();
    return () => {
      dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      role="alertdialog"
      aria-modal="true"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-question`}
      className="m-auto w-full max-w-lg rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-lg backdrop:bg-slate-900/30"
      data-testid={`${testId}-confirm`}
      onCancel={(e) => {
        // Escape: the dialog stays in React's hands, so it closes by unmounting.
        e.preventDefault();
        if (!busy) onCancel();
      }}
    >
      <form
        className="space-y-3 p-5 text-sm"
        onSubmit={(e) => {
          e.preventDefault();
          if (!busy && ready) onConfirm();
        }}
      >
        <h2 id={`${id}-title`} className="text-lg font-semibold">{title}</h2>
        <div id={`${id}-question`} className="space-y-2 text-slate-700">{children}</div>
        {fields}
        {error && <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-red-800">{error}</p>}
        <div className="flex justify-end gap-2">
          <button ref={keep} type="button" className={buttonClass.secondary} disabled={busy} onClick={onCancel} data-testid={`${testId}-no`}>{cancelLabel}</button>
          <button type="submit" className={tone === 'danger' ? buttonClass.danger : buttonClass.primary} disabled={busy || !ready} data-testid={`${testId}-yes`}>
            {busy ? busyLabel : confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
