'use client';
/**
 * The canvas's state: React Flow nodes and edges (the source of truth while editing) plus the parts
 * of the file that are not drawn. The mesh file is derived from them through the mappers.
 */
import { useEdgesState, useNodesState, type Connection, type XYPosition } from '@xyflow/react';
import { useCallback, useMemo, useState } from 'react';
import type { Channel, Member, MemberKind, Mesh } from '@trellis/mesh/schema';
import { autoLayout, matchesLayout, type LayoutResult } from './auto-layout';
import { channelEdge, flowToMesh, memberNode, meshToFlow } from './mappers';
import { freePosition, newMember, renameMember } from './members';
import type { ChannelEdge, MemberNode, MeshMeta } from './types';

export type Selection = { kind: 'member'; id: string } | { kind: 'channel'; edgeId: string } | null;

export function useMeshEditor(initial: Mesh) {
  const first = useMemo(() => meshToFlow(initial), [initial]);
  const [meta, setMeta] = useState<MeshMeta>({ name: initial.name, description: initial.description });
  const [nodes, setNodes, onNodesChange] = useNodesState<MemberNode>(first.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<ChannelEdge>(first.edges);
  const mesh = useMemo(() => flowToMesh(meta, nodes, edges), [meta, nodes, edges]);

  const selection: Selection = useMemo(() => {
    const node = nodes.find((n) => n.selected);
    if (node) return { kind: 'member', id: node.id };
    const edge = edges.find((e) => e.selected);
    return edge ? { kind: 'channel', edgeId: edge.id } : null;
  }, [nodes, edges]);

  const select = useCallback(
    (target: Selection) => {
      setNodes((ns) => ns.map((n) => withSelected(n, target?.kind === 'member' && target.id === n.id)));
      setEdges((es) => es.map((e) => withSelected(e, target?.kind === 'channel' && target.edgeId === e.id)));
    },
    [setNodes, setEdges],
  );

  /** Replaces everything the canvas shows (an imported file, an undo step, a paste), selecting `selected` members. */
  const replace = useCallback(
    (next: Mesh, selected: readonly string[] = []) => {
      const flow = meshToFlow(next);
      setMeta({ name: next.name, description: next.description });
      const chosen = new Set(selected);
      setNodes(chosen.size ? flow.nodes.map((n) => (chosen.has(n.id) ? { ...n, selected: true } : n)) : flow.nodes);
      setEdges(flow.edges);
    },
    [setNodes, setEdges],
  );

  const addMember = useCallback(
    (kind: MemberKind, at?: XYPosition, nestedDefault?: string) => {
      setNodes((ns) => {
        const member = newMember(kind, new Set(ns.map((n) => n.id)), nestedDefault);
        if (ns.length === 0) member.head = true;
        const node = { ...memberNode(member, at ?? freePosition(ns)), selected: true };
        return [...ns.map((n) => withSelected(n, false)), node];
      });
      setEdges((es) => es.map((e) => withSelected(e, false)));
    },
    [setNodes, setEdges],
  );

  /** Applies a member edit; a new id renames it everywhere, and making it the head unmarks the others. */
  const updateMember = useCallback(
    (id: string, member: Member) => {
      let ns = nodes;
      let es = edges;
      if (member.id !== id) ({ nodes: ns, edges: es } = renameMember(ns, es, id, member.id));
      ns = ns.map((n) => {
        if (n.id === member.id) return { ...n, data: { member } };
        if (member.head && n.data.member.head) {
          const { head: _head, ...rest } = n.data.member;
          return { ...n, data: { member: rest } };
        }
        return n;
      });
      setNodes(ns);
      setEdges(es);
    },
    [nodes, edges, setNodes, setEdges],
  );

  const removeMember = useCallback(
    (id: string) => {
      setNodes((ns) => ns.filter((n) => n.id !== id));
      setEdges((es) => es.filter((e) => e.source !== id && e.target !== id));
    },
    [setNodes, setEdges],
  );

  const canConnect = useCallback(
    (c: Connection | ChannelEdge) =>
      c.source !== c.target && !edges.some((e) => e.source === c.source && e.target === c.target),
    [edges],
  );

  const connect = useCallback(
    (c: Connection) => {
      if (!canConnect(c)) return;
      const edge = { ...channelEdge({ from: c.source, to: c.target }), selected: true };
      setNodes((ns) => ns.map((n) => withSelected(n, false)));
      setEdges((es) => [...es.map((e) => withSelected(e, false)), edge]);
    },
    [canConnect, setNodes, setEdges],
  );

  const updateChannel = useCallback(
    (edgeId: string, channel: Channel) =>
      setEdges((es) => es.map((e) => (e.id === edgeId ? { ...e, data: { channel } } : e))),
    [setEdges],
  );

  const removeChannel = useCallback((edgeId: string) => setEdges((es) => es.filter((e) => e.id !== edgeId)), [setEdges]);

  /**
   * Puts members where `result` says (unless `routesOnly`) and draws channels along its routes; edges
   * it does not know keep theirs.
   */
  const applyLayout = useCallback(
    (result: LayoutResult, routesOnly = false) => {
      if (!routesOnly) setNodes((ns) => ns.map((n) => {
        const p = result.positions.get(n.id);
        return p && (p.x !== n.position.x || p.y !== n.position.y) ? { ...n, position: p } : n;
      }));
      setEdges((es) => es.map((e) => {
        const route = result.routes.get(e.id);
        return route && e.data ? { ...e, data: { ...e.data, route } } : e;
      }));
    },
    [setNodes, setEdges],
  );

  /** Lays the whole mesh out again (the toolbar's Layout button); resolves once the positions are applied. */
  const layout = useCallback(
    async () => applyLayout(await autoLayout(nodes, edges)),
    [applyLayout, nodes, edges],
  );

  /**
   * On open, once React Flow has measured the members: a mesh with members that have no saved
   * position is laid out; a mesh saved as auto-layout left it keeps its positions and gets the
   * layout's channel routes and label places. Resolves true when positions changed.
   */
  const layoutOnOpen = useCallback(
    async (unplaced: boolean): Promise<boolean> => {
      const result = await autoLayout(nodes, edges);
      if (unplaced) {
        applyLayout(result);
        return true;
      }
      if (matchesLayout(nodes, result)) applyLayout(result, true);
      return false;
    },
    [applyLayout, nodes, edges],
  );

  return {
    meta, setMeta, nodes, edges, mesh, selection, onNodesChange, onEdgesChange,
    select, replace, addMember, updateMember, removeMember, canConnect, connect, updateChannel, removeChannel, layout, layoutOnOpen,
  };
}

export type MeshEditor = ReturnType<typeof useMeshEditor>;

function withSelected<T extends { selected?: boolean }>(item: T, selected: boolean): T {
  return (item.selected ?? false) === selected ? item : { ...item, selected };
}
