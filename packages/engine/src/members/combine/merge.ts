/** How a combine turns its parts (in `seq` order) into one payload. */
import type { CombineMember } from '@trellis/mesh/schema';
import { fieldObject, getField } from '../../plan/frames';

/**
 * Merges part payloads given in `seq` order.
 * `concat` joins a text field (a missing field counts as empty; a non-text value as its JSON);
 * `collect` gathers the payloads into an array. Zero parts give `''` or `[]`.
 */
export function mergeParts(member: CombineMember, payloads: readonly unknown[]): Record<string, unknown> {
  const merge = member.merge;
  if (merge.type === 'collect') return { [merge.into]: [...payloads] };
  let text = '';
  for (const p of payloads) {
    const v = getField(p, merge.field);
    text += typeof v === 'string' ? v : v === null ? '' : JSON.stringify(v);
  }
  return fieldObject(merge.field, text);
}
