'use client';
/**
 * What is drawn on top of the mesh without being part of it: validation findings (editor) or message
 * counts (run page). Nodes and edges read it from context, so the mappers stay pure and the mesh
 * file never carries view state.
 */
import { createContext, useContext } from 'react';
import type { Finding } from '@trellis/mesh/findings';

/** Counts shown on a member during a run. */
export interface MemberCountsView {
  published: number;
  done: number;
  deadLettered: number;
  lost: number;
  running: number;
  pending: number;
  parked: number;
}

export interface CanvasOverlay {
  findingsByMember: ReadonlyMap<string, Finding[]>;
  findingsByChannel: ReadonlyMap<string, Finding[]>;
  counts?: Readonly<Record<string, MemberCountsView>>;
  readOnly: boolean;
  /** Selects a channel for editing when its label is clicked (the label sits outside the edge's SVG). */
  onChannelClick?: (edgeId: string) => void;
}

const EMPTY: CanvasOverlay = { findingsByMember: new Map(), findingsByChannel: new Map(), readOnly: false };

export const CanvasOverlayContext = createContext<CanvasOverlay>(EMPTY);

export function useOverlay(): CanvasOverlay {
  return useContext(CanvasOverlayContext);
}

/** Groups findings by the member and the channel they name. */
export function groupFindings(findings: readonly Finding[]): Pick<CanvasOverlay, 'findingsByMember' | 'findingsByChannel'> {
  const byMember = new Map<string, Finding[]>();
  const byChannel = new Map<string, Finding[]>();
  for (const f of findings) {
    if (f.member) byMember.set(f.member, [...(byMember.get(f.member) ?? []), f]);
    if (f.channel) byChannel.set(f.channel, [...(byChannel.get(f.channel) ?? []), f]);
  }
  return { findingsByMember: byMember, findingsByChannel: byChannel };
}

/** The worst severity among findings, for the badge colour. */
export function worst(findings: readonly Finding[] | undefined): 'error' | 'warning' | undefined {
  if (!findings?.length) return undefined;
  return findings.some((f) => f.severity === 'error') ? 'error' : 'warning';
}
