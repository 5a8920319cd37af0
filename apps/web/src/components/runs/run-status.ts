/** Run states that will not change any more (a stalled run can still be reopened, but nothing moves on its own). */
export const ENDED = new Set(['done', 'failed', 'stalled', 'cancelled']);

export const RUN_STATUS_OPTIONS = ['queued', 'running', 'done', 'failed', 'stalled', 'cancelled'] as const;
export const MESSAGE_STATUS_OPTIONS = ['pending', 'running', 'done', 'dead', 'lost', 'parked', 'cancelled', 'filtered'] as const;

/** Runs a person may cancel: those that can still move. */
export const CANCELLABLE = new Set(['queued', 'running', 'stalled']);

export function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id;
}

/** How an admission verdict reads: still waiting (amber), refused (red), or settled / ran at once (plain). */
export type AdmissionTone = 'waiting' | 'refused' | 'plain';

/**
 * The admission verdict in words for a run's page and its Runs tab row (engine runs/admission.ts):
 * the server's line (the wait while it waits, how long it waited, the refusal) or else the verdict's
 * own sentence (`Runs now: …`), with its tone; null for runs from before admission.
 */
export function admissionWords(admission: { verdict: string; sentence: string } | null, line: string | null): { text: string; tone: AdmissionTone; verdict: string } | null {
  const text = line ?? admission?.sentence;
  if (!admission || !text) return null;
  const tone: AdmissionTone = admission.verdict === 'wait' && line === admission.sentence ? 'waiting' : admission.verdict === 'refused' ? 'refused' : 'plain';
  return { text, tone, verdict: admission.verdict };
}

/** Text colour of each {@link AdmissionTone}. */
export const ADMISSION_TONE_CLASS: Record<AdmissionTone, string> = { waiting: 'text-amber-800', refused: 'text-red-800', plain: 'text-slate-600' };
