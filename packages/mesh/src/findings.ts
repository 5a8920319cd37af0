/**
 * Findings: what the mesh reader and the validator report about a mesh file (DESIGN.md §7).
 * Codes are stable so tools can rely on them; messages are plain sentences for people.
 */

/** Every finding code, in the order tools usually list them. */
export const FINDING_CODES = [
  // Refusals of the file as a whole (parse.ts).
  'not_json',
  'format_unsupported',
  'schema_invalid',
  'duplicate_id',
  // Validation of a readable mesh (validate.ts).
  'head_missing',
  'head_multiple',
  'member_missing',
  'condition_invalid',
  'loop',
  'orphan',
  'nested_mesh_missing',
  'nesting_cycle',
  'tool_missing',
  'member_config_invalid',
  'condition_type_mismatch',
  'sequential_branches',
  'join_may_skip_parts',
] as const;

/** A stable finding code. */
export type FindingCode = (typeof FINDING_CODES)[number];

/** `error` blocks a run (and an import, for the file's structure); `warning` only informs. */
export type FindingSeverity = 'error' | 'warning';

/** One problem with a mesh, naming the member or channel it is about when there is one. */
export interface Finding {
  code: FindingCode;
  severity: FindingSeverity;
  /** Id of the member the finding is about. */
  member?: string;
  /** Name of the channel the finding is about (its `id`, else `from->to`). */
  channel?: string;
  /** Path of the field inside the member, such as `outputSchema` or `steps[1].url`. */
  field?: string;
  /** A plain sentence for an analyst. */
  message: string;
}

/** True when any finding is an error. */
export function hasErrors(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.severity === 'error');
}

/** True when `x` is one of the stable finding codes. */
export function isFindingCode(x: unknown): x is FindingCode {
  return typeof x === 'string' && (FINDING_CODES as readonly string[]).includes(x);
}
