/**
 * Guards for JSON that comes from a mesh author: how deep it nests (checked on the text, without
 * recursion, before anything recursive such as zod or superjson sees it) and keys that reach an
 * object's prototype when copied (`__proto__`, `constructor`, `prototype`).
 */
import { LimitExceededError } from '../kernel/errors';
import { LIMIT_VARIABLE, limits } from './env';

/**
 * The deepest nesting of arrays and objects in JSON `text`, scanning once and skipping strings.
 * Malformed text gives a figure too (the parser reports the malformation afterwards).
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return deepest;
}

/** The deepest nesting of a parsed value, iteratively (a 100 000-level value does not overflow the stack). */
export function valueDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    const here = d + 1;
    if (here > deepest) deepest = here;
    for (const child of Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, here]);
  }
  return deepest;
}

/**
 * Refuses `text` that nests deeper than TRELLIS_MAX_JSON_DEPTH or is longer than `maxBytes`
 * (UTF-8) when given; `what` names the thing in the message (e.g. `the mesh definition`).
 * @throws LimitExceededError naming the cap.
 */
export function checkJsonText(text: string, what: string, size?: { maxBytes: number; cap: keyof typeof LIMIT_VARIABLE }): void {
  if (size) {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > size.maxBytes) {
      throw new LimitExceededError(LIMIT_VARIABLE[size.cap], size.maxBytes, `${what} is ${bytes} bytes, over ${LIMIT_VARIABLE[size.cap]} (${size.maxBytes} bytes)`);
    }
  }
  checkDepth(jsonDepth(text), what);
}

/** {@link checkJsonText} for a value already parsed (tRPC inputs). @throws LimitExceededError naming the cap. */
export function checkJsonValue(value: unknown, what: string, size?: { maxBytes: number; cap: keyof typeof LIMIT_VARIABLE }): void {
  checkDepth(valueDepth(value), what);
  if (size) checkJsonText(JSON.stringify(value) ?? 'null', what, size);
}

function checkDepth(depth: number, what: string): void {
  const max = limits().maxJsonDepth;
  if (depth > max) {
    throw new LimitExceededError(LIMIT_VARIABLE.maxJsonDepth, max, `${what} nests ${depth} levels deep, over TRELLIS_MAX_JSON_DEPTH (${max})`);
  }
}

/** Keys that reach an object's prototype when a value is spread or merged. */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * A copy of `value` without {@link PROTOTYPE_KEYS} at any depth; `value` itself when it has none
 * (the common case costs one walk, no copy). Iterative, so deep values do not overflow the stack.
 */
export function stripPrototypeKeys<T>(value: T): T {
  if (!hasPrototypeKey(value)) return value;
  const root: { v: unknown } = { v: undefined };
  const stack: { from: unknown; into: Record<string, unknown> | unknown[]; key: string | number }[] = [{ from: value, into: root, key: 'v' }];
  while (stack.length > 0) {
    const { from, into, key } = stack.pop() as (typeof stack)[number];
    let copy: unknown = from;
    if (Array.isArray(from)) {
      const arr: unknown[] = new Array<unknown>(from.length);
      from.forEach((item, i) => stack.push({ from: item, into: arr, key: i }));
      copy = arr;
    } else if (typeof from === 'object' && from !== null) {
      const obj: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(from)) if (!PROTOTYPE_KEYS.has(k)) stack.push({ from: item, into: obj, key: k });
      copy = obj;
    }
    (into as Record<string | number, unknown>)[key] = copy;
  }
  return root.v as T;
}

function hasPrototypeKey(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    for (const [k, child] of Object.entries(v)) {
      if (PROTOTYPE_KEYS.has(k)) return true;
      if (typeof child === 'object' && child !== null) stack.push(child);
    }
  }
  return false;
}
