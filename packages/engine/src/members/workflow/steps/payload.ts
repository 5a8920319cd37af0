/** Payload helpers shared by the steps that write their result into a field (`into`). */

/** `payload` with the dotted field `path` set to `value`; a non-object payload becomes `{ value: payload }` first. */
export function withField(payload: unknown, path: string, value: unknown): Record<string, unknown> {
  const base: Record<string, unknown> = isObject(payload) ? { ...payload } : payload === null || payload === undefined ? {} : { value: payload };
  const keys = path.split('.');
  let at = base;
  keys.forEach((key, i) => {
    if (i === keys.length - 1) {
      at[key] = value;
      return;
    }
    const inner = at[key];
    const copy: Record<string, unknown> = isObject(inner) ? { ...inner } : {};
    at[key] = copy;
    at = copy;
  });
  return base;
}

/** True for a plain object (not null, not an array). */
export function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** The message of an error, or the thrown value as text. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
