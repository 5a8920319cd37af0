/**
 * Regular expressions a mesh file supplies (e.g. the email step's `id.pattern`) run on RE2's
 * linear-time engine (re2js, a pure JavaScript port), never on JavaScript's backtracking `RegExp`:
 * a pattern such as `^(a|a)+$` on a long subject would hold the process for minutes. RE2 has no
 * backreferences and no lookaround; such a pattern is refused when the mesh is checked.
 */
import { RE2JS } from 're2js';

/**
 * Compiles a mesh-supplied pattern for RE2.
 * @returns the compiled pattern, or `{ error }` saying why RE2 cannot take it.
 */
export function compileMeshPattern(pattern: string): RE2JS | { error: string } {
  try {
    return RE2JS.compile(pattern);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { error: `expected a regular expression RE2 accepts (no backreferences or lookaround): ${why}` };
  }
}

/**
 * The first match of `pattern` in `text`: its first group when it has one and the group took part,
 * else the whole match; undefined when nothing matches. Linear in the length of `text`.
 * @throws Error when `pattern` does not compile (the mesh validator refuses such a pattern first).
 */
export function firstMatch(pattern: string, text: string): string | undefined {
  const re = compileMeshPattern(pattern);
  if ('error' in re) throw new Error(re.error);
  const m = re.matcher(text);
  if (!m.find()) return undefined;
  const group = re.groupCount() >= 1 ? m.group(1) : null;
  return group ?? m.group(0) ?? undefined;
}
