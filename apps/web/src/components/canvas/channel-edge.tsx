'use client';
/** A channel: the arrow, its condition as a label (click to edit), and its findings badge. */
import { BaseEdge, getBezierPath, type EdgeProps } from '@xyflow/react';
import { memo } from 'react';
import { labelText } from './auto-layout';
import { useOverlay, worst } from './overlay';
import type { ChannelEdge, ChannelRoute } from './types';

/** How far (px) a handle may sit from where auto-layout routed the channel before the route is dropped. */
const ROUTE_SLACK = 8;

/**
 * The auto-layout route as an SVG path with its label centre, when both ends are still where the
 * layout put them (React Flow's handle points replace the route's first and last points); else null.
 */
function routed(route: ChannelRoute | undefined, p: EdgeProps<ChannelEdge>): [string, number, number] | null {
  const first = route?.points[0];
  const last = route?.points[route.points.length - 1];
  if (!route?.label || !first || !last) return null;
  const near = (a: { x: number; y: number }, x: number, y: number) => Math.abs(a.x - x) <= ROUTE_SLACK && Math.abs(a.y - y) <= ROUTE_SLACK;
  if (!near(first, p.sourceX, p.sourceY) || !near(last, p.targetX, p.targetY)) return null;
  const inner = route.points.slice(1, -1).map((q) => `L ${q.x} ${q.y}`).join(' ');
  return [`M ${p.sourceX} ${p.sourceY} ${inner} L ${p.targetX} ${p.targetY}`, route.label.x, route.label.y];
}

function ChannelEdgeView(props: EdgeProps<ChannelEdge>) {
  const { id, source, target, data, selected } = props;
  const { findingsByChannel, onChannelClick, readOnly } = useOverlay();
  const [path, labelX, labelY] = routed(data?.route, props) ?? getBezierPath(props);
  const name = data?.channel.id ?? `${source}->${target}`;
  const findings = findingsByChannel.get(name);
  const severity = worst(findings);
  const when = data?.channel.when?.trim();
  const text = labelText(when, readOnly);
  const stroke = severity === 'error' ? '#dc2626' : severity === 'warning' ? '#d97706' : selected ? '#0284c7' : '#64748b';
  const tone = severity === 'error'
    ? 'border-red-400 bg-red-50 text-red-800'
    : severity === 'warning'
      ? 'border-amber-400 bg-amber-50 text-amber-900'
      : selected
        ? 'border-sky-500 bg-sky-50 text-sky-900'
        : 'border-slate-300 bg-white text-slate-600';
  const labelProps = {
    'data-testid': `edge-label-${source}-${target}`,
    'data-severity': severity,
    title: findings?.map((f) => f.message).join('\n') ?? (when ? `only when ${when}` : 'every message'),
    className: `nodrag nopan whitespace-nowrap rounded border px-1.5 py-0.5 font-mono text-[10px] leading-[14px] shadow-sm ${tone}`,
  };
  const content = (
    <>
      {severity && <span className="mr-1 font-sans font-bold" aria-hidden>{severity === 'error' ? '!' : '⚠'}</span>}
      {text}
    </>
  );
  return (
    <>
      <BaseEdge id={id} path={path} markerEnd={`url(#trellis-arrow-${severity ?? 'none'})`} style={{ stroke, strokeWidth: selected ? 2.5 : 1.5 }} interactionWidth={24} />
      {(text || severity) && (
        // Inside the edge's own SVG group (not a portal), so the label is part of the edge: clicking the edge
        // by its test id lands on the label, and a straight edge still has a box with width.
        <foreignObject x={labelX - 200} y={labelY - 12} width={400} height={24} style={{ overflow: 'visible', pointerEvents: 'none' }}>
          <div className="flex h-full items-center justify-center">
            {onChannelClick ? (
              <button type="button" {...labelProps} onClick={() => onChannelClick(id)} style={{ pointerEvents: 'all' }}>{content}</button>
            ) : (
              // Nothing to click where channels are not edited (the run page): plain text, no nested control.
              <span {...labelProps}>{content}</span>
            )}
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
