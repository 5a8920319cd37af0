/** A form field's text (trimmed unless `raw`), or '' when the field is missing or a file. */
export function formText(data: FormData, name: string, raw = false): string {
  const v = data.get(name);
  if (typeof v !== 'string') return '';
  return raw ? v : v.trim();
}
