/**
 * The built-in `demo` model: a deterministic stand-in so example meshes run without an API key.
 * It is NOT a language model: it reads no instructions, calls no tools and understands nothing.
 * It fills the output schema from the payload by the fixed rules on {@link demoAnswer}.
 */
import { z } from 'zod';
import type { AgentMember } from '@trellis/mesh/schema';
import { checkOutput } from './output';

type Schema = Record<string, unknown>;

const EXCERPT = 200;

interface Input {
  /** Every string in the payload, depth first, joined by single spaces. */
  text: string;
  /** Every key anywhere in the payload with its value, the first (shallowest, earliest) winning. */
  fields: Map<string, unknown>;
}

/**
 * The demo's answer to a payload, the same every time for the same member and payload.
 *
 * Without an output schema: `{ text: "[demo] " + the payload's text }` (first 200 characters),
 * where the payload's text is every string in it, depth first, joined by spaces.
 * With one, each value is chosen by the first rule that applies:
 * 1. `const` → that value.
 * 2. a payload field with the property's name (at any depth, exact name first, then ignoring case)
 *    whose value satisfies the property's schema → that value, copied.
 * 3. `enum` → the first option that appears in the payload's text as a whole word or phrase
 *    (ignoring case), else the first option.
 * 4. by `type` (the first non-null one when several are listed; `anyOf`/`oneOf` → the first):
 *    object → each property filled by these rules; array → one item (repeated up to `minItems`);
 *    string → the payload's text (first 200 characters, cut to `maxLength`), or `"demo"` when empty;
 *    number → 0.9; integer → the payload's word count; both clamped to `minimum`/`maximum`;
 *    boolean → true when every word of the property name (split at `_`, `-` and camelCase)
 *    appears in the payload's text; null → null; no type → the string rule.
 * The result is checked against the schema like a model's answer, so a schema the rules cannot
 * satisfy (a `pattern`, say) fails with `outcome_unreadable`, not retryable.
 * @throws StepError `outcome_unreadable` when the filled value does not match the schema.
 */
export function demoAnswer(member: AgentMember, payload: unknown): unknown {
  const input: Input = { text: stringsOf(payload).join(' '), fields: fieldsOf(payload) };
  if (!member.outputSchema) return { text: `[demo] ${input.text.slice(0, EXCERPT)}` };
  return checkOutput(member, fill(member.outputSchema, undefined, input), false);
}

function fill(schema: Schema, name: string | undefined, input: Input): unknown {
  if ('const' in schema) return schema.const;
  if (name !== undefined) {
    const found = fieldNamed(input.fields, name);
    if (found !== undefined && satisfies(schema, found)) return found;
  }
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    return schema.enum.find((option) => mentions(input.text, String(option))) ?? schema.enum[0];
  }
  const alternative = firstSchema(schema.anyOf) ?? firstSchema(schema.oneOf);
  if (alternative) return fill(alternative, name, input);
  switch (typeOf(schema)) {
    case 'object': {
      const props = isSchema(schema.properties) ? schema.properties : {};
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(props)) out[key] = fill(isSchema(sub) ? sub : {}, key, input);
      return out;
    }
    case 'array': {
      const items = isSchema(schema.items) ? schema.items : {};
      const count = Math.max(1, numberAt(schema, 'minItems') ?? 1);
      return Array.from({ length: count }, () => fill(items, name, input));
    }
    case 'number':
      return clamp(schema, 0.9);
    case 'integer':
      return clamp(schema, input.text.split(/\s+/).filter(Boolean).length);
    case 'boolean':
      return name !== undefined && wordsOf(name).every((w) => mentions(input.text, w));
    case 'null':
      return null;
    default: {
      const text = input.text.trim() === '' ? 'demo' : input.text.slice(0, EXCERPT);
      return text.slice(0, numberAt(schema, 'maxLength') ?? EXCERPT);
    }
  }
}

function isSchema(x: unknown): x is Schema {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function firstSchema(list: unknown): Schema | undefined {
  return Array.isArray(list) && isSchema(list[0]) ? list[0] : undefined;
}

function typeOf(schema: Schema): unknown {
  const t = schema.type;
  return Array.isArray(t) ? (t.find((x) => x !== 'null') ?? t[0]) : t;
}

function numberAt(schema: Schema, key: string): number | undefined {
  const v = schema[key];
  return typeof v === 'number' ? v : undefined;
}

function clamp(schema: Schema, value: number): number {
  const min = numberAt(schema, 'minimum');
  const max = numberAt(schema, 'maximum');
  return Math.min(max ?? Infinity, Math.max(min ?? -Infinity, value));
}

function satisfies(schema: Schema, value: unknown): boolean {
  try {
    return z.fromJSONSchema(schema).safeParse(value).success;
  } catch {
    return false;
  }
}

/** Whole-word, case-insensitive: `bill` is in "a medical bill." but not in "billing". */
function mentions(text: string, phrase: string): boolean {
  const p = phrase.trim().toLowerCase();
  if (p === '') return false;
  const escaped = p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'u').test(text.toLowerCase());
}

function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean);
}

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (isSchema(value)) return Object.values(value).flatMap(stringsOf);
  return [];
}

function fieldsOf(payload: unknown): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  // Breadth first, so a top-level field wins over a nested one of the same name.
  let level: unknown[] = [payload];
  while (level.length > 0) {
    const next: unknown[] = [];
    for (const value of level) {
      const entries = Array.isArray(value) ? value.map((v) => [undefined, v] as const) : isSchema(value) ? Object.entries(value) : [];
      for (const [key, v] of entries) {
        if (key !== undefined && !fields.has(key)) fields.set(key, v);
        next.push(v);
      }
    }
    level = next;
  }
  return fields;
}

function fieldNamed(fields: Map<string, unknown>, name: string): unknown {
  if (fields.has(name)) return fields.get(name);
  const lower = name.toLowerCase();
  for (const [key, value] of fields) if (key.toLowerCase() === lower) return value;
  return undefined;
}
