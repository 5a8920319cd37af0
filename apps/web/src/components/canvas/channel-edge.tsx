'use client';
/** A channel: the arrow, its condition as a label (click to edit), and its findings badge. */
import { BaseEdge, getBezierPath, type EdgeProps } from '@xyflow/react';
import { memo } from 'react';
import { useOverlay, worst } from './overlay';
import type { ChannelEdge } from './types';

function ChannelEdgeView(props: EdgeProps<ChannelEdge>) {
  const { id, source, target, data, selected } = props;
  const { findingsByChannel, onChannelClick, readOnly } = useOverlay();
  const [path, labelX, labelY] = getBezierPath(props);
  const name = data?.channel.id ?? `${source}->${target}`;
  const findings = findingsByChannel.get(name);
  const severity = worst(findings);
  const when = data?.channel.when?.trim();
  const stroke = severity === 'error' ? '#dc2626' : severity === 'warning' ? '#d97706' : selected ? '#0284c7' : '#64748b';
  const tone = severity === 'error'
    ? 'border-red-400 bg-red-50 text-red-800'
    : severity === 'warning'
      ? 'border-amber-400 bg-amber-50 text-amber-900'
      : selected
        ? 'border-sky-500 bg-sky-50 text-sky-900'
        : 'border-slate-300 bg-white text-slate-600';
  return (
    <>
      <BaseEdge id={id} path={path} markerEnd={`url(#trellis-arrow-${severity ?? 'none'})`} style={{ stroke, strokeWidth: selected ? 2.5 : 1.5 }} interactionWidth={24} />
      {(when || !readOnly || severity) && (
        // Inside the edge's own SVG group (not a portal), so the label is part of the edge: clicking the edge
        // by its test id lands on the label, and a straight edge still has a box with width.
        <foreignObject x={labelX - 110} y={labelY - 12} width={220} height={24} style={{ overflow: 'visible', pointerEvents: 'none' }}>
          <div className="flex h-full items-center justify-center">
            <button
              type="button"
              data-testid={`edge-label-${source}-${target}`}
              data-severity={severity}
              title={findings?.map((f) => f.message).join('\n') ?? (when ? `only when ${when}` : 'every message')}
              onClick={() => onChannelClick?.(id)}
              className={`nodrag nopan max-w-52 truncate rounded border px-1.5 py-0.5 font-mono text-[10px] shadow-sm ${tone}`}
              style={{ pointerEvents: 'all' }}
            >
              {severity && <span className="mr-1 font-sans font-bold">{severity === 'error' ? '!' : '⚠'}</span>}
              {when ?? (readOnly ? '' : 'always')}
            </button>
          </div>
        </foreignObject>
      )}
    </>
  );
}

export default memo(ChannelEdgeView);

/** Arrowheads per severity; rendered once inside the canvas. */
export function ArrowMarkers() {
  const colors = { none: '#64748b', warning: '#d97706', error: '#dc2626' } as const;
  return (
    <svg style={{ position: 'absolute', width: 0, height: 0 }} aria-hidden>
      <defs>
        {Object.entries(colors).map(([k, c]) => (
          <marker key={k} id={`trellis-arrow-${k}`} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" fill={c} />
          </marker>
        ))}
      </defs>
    </svg>
  );
}
