/**
 * What the canvas knows about one member kind: how its node looks, its settings fields, its palette
 * style and a new member's defaults. Each kind declares one `KindUi` in `kinds/<kind>.tsx`;
 * `kinds/kind-ui.ts` collects them in `KIND_UI`, keyed by every `MemberKind`.
 */
import type { Node, NodeProps } from '@xyflow/react';
import type { ComponentType } from 'react';
import type { Member, MemberKind } from '@trellis/mesh/schema';

/** The member of kind `K`. */
export type MemberOf<K extends MemberKind> = Extract<Member, { kind: K }>;

/** Palette and node header: label, icon, Tailwind classes of the header, a hint for the palette. */
export interface KindStyle {
  label: string;
  icon: string;
  header: string;
  hint: string;
}

/** Props of a kind's settings fields in the side panel. */
export interface KindFieldsProps<K extends MemberKind> {
  member: MemberOf<K>;
  /** Saved meshes other than this one (for nested meshes). */
  meshNames: readonly string[];
  onChange: (m: MemberOf<K>) => void;
}

/** What a new member gets to start from. */
export interface KindDefaultsContext {
  /** A saved mesh a new nested-mesh member runs (the first other one, or a placeholder). */
  nestedDefault: string;
}

/** A kind node's data: its member (React Flow wants node data to be a record). */
type KindNodeData<K extends MemberKind> = { member: MemberOf<K> } & Record<string, unknown>;

/** One member kind on the canvas. */
export interface KindUi<K extends MemberKind> {
  style: KindStyle;
  /** The React Flow node (memoized; shown in the editor and on the run page). */
  node: ComponentType<NodeProps<Node<KindNodeData<K>, K>>>;
  /** The kind's own settings in the side panel, below the fields every member has. */
  Fields: ComponentType<KindFieldsProps<K>>;
  /** A new member with id `id` and settings that pass validation where possible. */
  defaults: (id: string, ctx: KindDefaultsContext) => MemberOf<K>;
  /** Runs on a worker pool (the panel offers the Worker pool field). */
  pooled: boolean;
}

/** Every kind's {@link KindUi}: a missing kind fails the typecheck. */
export type KindUiRecord = { [K in MemberKind]: KindUi<K> };
