/**
 * An agent's output schema: JSON Schema in the mesh file, turned into a zod schema with zod's own
 * `z.fromJSONSchema` (zod ≥ 4.2), and the one place an answer is checked against it.
 */
import { z } from 'zod';
import type { AgentMember } from '@trellis/mesh/schema';
import { agentFailure } from './fail';

const compiled = new WeakMap<object, z.ZodType>();

/**
 * The zod schema for the member's `outputSchema`, or undefined when it has none. Supports what
 * zod's converter supports: type object/string/number/integer/boolean/array/null, properties,
 * required, enum, const, items, anyOf/oneOf/allOf, min/max bounds and local `$ref`s. Properties
 * not listed in `required` are optional; extra properties are allowed unless
 * `additionalProperties: false`. Compiled once per schema object.
 * @throws StepError `step_code_failed` (not retryable) when the schema cannot be converted.
 */
export function outputValidator(member: AgentMember): z.ZodType | undefined {
  const schema = member.outputSchema;
  if (!schema) return undefined;
  const cached = compiled.get(schema);
  if (cached) return cached;
  let zod: z.ZodType;
  try {
    zod = z.fromJSONSchema(schema);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw agentFailure(member, 'step_code_failed', `its outputSchema cannot be used: ${why}`, false);
  }
  compiled.set(schema, zod);
  return zod;
}

/**
 * Checks a structured value against the member's output schema and returns the parsed value.
 * @throws StepError `outcome_unreadable` naming the first problems when it does not match.
 */
export function checkOutput(member: AgentMember, value: unknown, retryable: boolean): unknown {
  const schema = outputValidator(member);
  if (!schema) return value;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join('.') : '(answer)'}: ${i.message}`)
    .join('; ');
  throw agentFailure(member, 'outcome_unreadable', `the answer does not match the output schema (${problems})`, retryable);
}

/**
 * Turns the model's final text into the member's output: with an output schema, the text must be
 * JSON matching it; without one, the output is `{ text }`.
 * Models are not deterministic, so an unreadable answer is retryable.
 * @throws StepError `outcome_unreadable` for empty text, text that is not JSON, or a mismatch.
 */
export function readAnswer(member: AgentMember, content: string | null | undefined): unknown {
  const text = content ?? '';
  if (!member.outputSchema) return { text };
  if (text.trim() === '') {
    throw agentFailure(member, 'outcome_unreadable', 'the model answered with no text', true);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const start = text.length > 120 ? `${text.slice(0, 120)}…` : text;
    throw agentFailure(member, 'outcome_unreadable', `the answer is not JSON: ${JSON.stringify(start)}`, true);
  }
  return checkOutput(member, value, true);
}
