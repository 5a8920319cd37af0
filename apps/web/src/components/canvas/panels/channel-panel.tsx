'use client';
/**
 * The side panel for the selected channel: its condition, checked as you type with the same parser
 * the engine uses. It shows the grouping it read (so `a or b and c` is never a surprise) or where
 * and why it could not read it.
 */
import { useMemo } from 'react';
import type { Channel } from '@trellis/mesh/schema';
import { buttonClass, inputClass } from '@/components/ui/button';
import { readCondition } from '../condition-reading';
import { Field, optional } from './field';

export function ChannelPanel({ channel, onChange, onRemove }: { channel: Channel; onChange: (c: Channel) => void; onRemove: () => void }) {
  const reading = useMemo(() => readCondition(channel.when), [channel.when]);
  return (
    <div className="space-y-4" data-testid="channel-panel" data-channel={`${channel.from}->${channel.to}`}>
      <div className="flex items-center justify-between">
        <h2 className="text-sm font-semibold">Channel</h2>
        <button type="button" className={buttonClass.danger} onClick={onRemove} data-testid="channel-remove">Delete</button>
      </div>
      <p className="text-sm text-slate-600">
        From <span className="font-mono">{channel.from}</span> to <span className="font-mono">{channel.to}</span>
      </p>
      <Field label="Condition (optional)"
        hint={<>Leave empty to send every message. Compare a field with a value using == != &lt; &lt;= &gt; &gt;=, join with <b>and</b> / <b>or</b>, group with parentheses. Text goes in quotes: <span className="font-mono">kind == &apos;medical bill&apos; and amount &gt;= 100</span></>}>
        <textarea className={`${inputClass} min-h-20 font-mono`} value={channel.when ?? ''} spellCheck={false} data-testid="channel-when"
          onChange={(e) => {
            const { when: _w, ...rest } = channel;
            const when = optional(e.target.value);
            onChange(when === undefined ? rest : { ...rest, when: e.target.value });
          }} />
      </Field>
      {reading.kind === 'ok' && (
        <div className="rounded-md border border-emerald-200 bg-emerald-50 p-2 text-sm" data-testid="channel-grouping">
          <span className="block text-xs font-medium text-emerald-800">Read as</span>
          <span className="font-mono text-emerald-900">{reading.grouping}</span>
        </div>
      )}
      {reading.kind === 'error' && (
        <div className="rounded-md border border-red-200 bg-red-50 p-2 text-sm text-red-800" data-testid="channel-condition-error" data-position={reading.position}>
          <span className="block text-xs font-medium">Cannot read this condition ({reading.where})</span>
          <pre className="mt-1 overflow-x-auto font-mono text-xs leading-tight">
            {channel.when}
            {'\n'}
            {' '.repeat(Math.max(0, reading.position))}^
          </pre>
          <span className="mt-1 block">{reading.message}</span>
        </div>
      )}
    </div>
  );
}
