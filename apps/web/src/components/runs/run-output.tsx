'use client';
/** What the run produced: a preview and a download (text outputs download as the exact text). */
import { buttonClass } from '@/components/ui/button';

const PREVIEW_CHARS = 2000;

function asText(output: unknown): { text: string; isText: boolean } {
  if (output && typeof output === 'object' && 'text' in output && typeof output.text === 'string') return { text: output.text, isText: true };
  return { text: JSON.stringify(output, null, 2) ?? 'null', isText: false };
}

export function RunOutput({ output, name }: { output: unknown; name: string | null }) {
  if (output === null || output === undefined) return null;
  const { text, isText } = asText(output);
  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: isText ? 'text/plain;charset=utf-8' : 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = isText ? `output-${name ?? 'run'}` : 'output.json';
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <section className="space-y-2" data-testid="run-output">
      <div className="flex items-center justify-between">
        <h2 className="text-sm font-semibold">Output {isText && <span className="font-normal text-slate-500">({text.length.toLocaleString()} characters)</span>}</h2>
        <button type="button" className={buttonClass.secondary} onClick={download} data-testid="run-output-download">Download</button>
      </div>
      <pre className="max-h-64 overflow-auto whitespace-pre-wrap rounded-lg border border-slate-200 bg-white p-3 font-mono text-xs">
        {text.slice(0, PREVIEW_CHARS)}
        {text.length > PREVIEW_CHARS && <span className="text-slate-400">{`\n… ${(text.length - PREVIEW_CHARS).toLocaleString()} more characters`}</span>}
      </pre>
    </section>
  );
}
