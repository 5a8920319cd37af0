'use client';
/** Banners under the toolbar: save results (saved, conflict, refused), import and run refusals. */
import type { Finding } from '@trellis/mesh/findings';
import { buttonClass } from '@/components/ui/button';
import { FindingsList } from '@/components/ui/findings-list';
import type { SaveOutcome } from './use-save';

export interface Notice {
  tone: 'info' | 'error';
  message: string;
  findings?: Finding[];
}

interface Props {
  save: SaveOutcome | null;
  notice: Notice | null;
  onDismissSave: () => void;
  onDismissNotice: () => void;
  onReload: () => void;
  onExport: () => void;
}

/** The save banner and the latest notice, stacked, each dismissable on its own. */
export function Notices({ save, notice, onDismissSave, onDismissNotice, onReload, onExport }: Props) {
  return (
    <>
      <SaveBanner save={save} onDismiss={onDismissSave} onReload={onReload} onExport={onExport} />
      {notice && (
        <Banner tone={notice.tone} testId={notice.tone === 'error' ? 'notice-error' : 'notice-info'} onDismiss={onDismissNotice}>
          <p className="font-medium">{notice.message}</p>
          {notice.findings && notice.findings.length > 0 && <div className="mt-2"><FindingsList findings={notice.findings} /></div>}
        </Banner>
      )}
    </>
  );
}

function SaveBanner({ save, onDismiss, onReload, onExport }: { save: SaveOutcome | null; onDismiss: () => void; onReload: () => void; onExport: () => void }) {
  if (save?.kind === 'conflict') {
    return (
      <Banner tone="warning" testId="save-conflict" onDismiss={onDismiss}>
        <p className="font-medium">Someone saved this mesh while you were editing{save.latestVersion ? ` (now version ${save.latestVersion})` : ''}.</p>
        <p className="text-sm">
          Your changes were not saved, so nobody&apos;s work was overwritten. Reload to continue from the latest version, or
          download your version first to compare.
        </p>
        <div className="mt-2 flex gap-2">
          <button type="button" className={buttonClass.primary} onClick={onReload} data-testid="save-conflict-reload">Reload the latest version</button>
          <button type="button" className={buttonClass.secondary} onClick={onExport}>Download my version first</button>
        </div>
      </Banner>
    );
  }
  if (save?.kind === 'saved') {
    return (
      <Banner tone="success" testId="save-ok" onDismiss={onDismiss}>
        {save.unchanged ? `Nothing changed since version ${save.version}.` : `Saved as version ${save.version}.`}
      </Banner>
    );
  }
  if (save?.kind === 'refused' || save?.kind === 'error') {
    return (
      <Banner tone="error" testId="save-refused" onDismiss={onDismiss}>
        <p className="font-medium">Not saved: {save.message}</p>
        {save.kind === 'refused' && save.findings.length > 0 && <div className="mt-2"><FindingsList findings={save.findings} /></div>}
      </Banner>
    );
  }
  return null;
}

const TONES = {
  info: 'border-sky-200 bg-sky-50 text-sky-900',
  success: 'border-emerald-200 bg-emerald-50 text-emerald-900',
  warning: 'border-amber-300 bg-amber-50 text-amber-900',
  error: 'border-red-200 bg-red-50 text-red-900',
} as const;

function Banner({ tone, testId, onDismiss, children }: { tone: keyof typeof TONES; testId: string; onDismiss: () => void; children: React.ReactNode }) {
  return (
    <div role={tone === 'error' || tone === 'warning' ? 'alert' : 'status'} data-testid={testId}
      className={`flex max-h-64 items-start gap-3 overflow-y-auto border-b px-4 py-2 text-sm ${TONES[tone]}`}>
      <div className="flex-1">{children}</div>
      <button type="button" onClick={onDismiss} className="text-lg leading-none opacity-60 hover:opacity-100" aria-label="Dismiss">×</button>
    </div>
  );
}
