/**
 * Every member kind's canvas definition (node, settings fields, style, defaults), keyed by kind.
 * Adding a kind: write `kinds/<kind>.tsx` exporting its `KindUi` and add it here; the typecheck
 * fails until every `MemberKind` has one.
 */
import type { MemberKind } from '@trellis/mesh/schema';
import { agentUi } from './agent';
import { combineUi } from './combine';
import { meshUi } from './mesh';
import { serviceUi } from './service';
import type { KindUi, KindUiRecord } from './types';
import { workflowUi } from './workflow';

export const KIND_UI = {
  agent: agentUi,
  workflow: workflowUi,
  mesh: meshUi,
  service: serviceUi,
  combine: combineUi,
} satisfies KindUiRecord;

// The same object seen through the mapped type, so an index by a generic kind keeps its kind.
const BY_KIND: KindUiRecord = KIND_UI;

/** The definition of `kind`, typed for that kind. */
export function kindUi<K extends MemberKind>(kind: K): KindUi<K> {
  return BY_KIND[kind];
}
