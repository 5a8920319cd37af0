/** How each member kind looks and is described, in the palette and on the canvas. */
import type { MemberKind } from '@trellis/mesh/schema';

export const KIND_STYLE: Record<MemberKind, { label: string; icon: string; header: string; hint: string }> = {
  agent: { label: 'Agent', icon: '✦', header: 'bg-violet-100 text-violet-900', hint: 'An LLM with instructions and its own model' },
  workflow: { label: 'Workflow', icon: '▤', header: 'bg-sky-100 text-sky-900', hint: 'A fixed sequence of steps: split, map, pass' },
  mesh: { label: 'Nested mesh', icon: '◎', header: 'bg-emerald-100 text-emerald-900', hint: 'Another mesh, run as a child run' },
  service: { label: 'Service', icon: '⇄', header: 'bg-amber-100 text-amber-900', hint: 'An outside system that claims and completes the step' },
  combine: { label: 'Combine', icon: '⋈', header: 'bg-rose-100 text-rose-900', hint: 'Joins the parts of a split, in order, once complete' },
};
