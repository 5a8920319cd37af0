/**
 * Reading a mesh file (DESIGN.md §7). An import with any structural error is refused whole, with
 * findings naming the member or channel and the field: not JSON, a missing, unknown or newer
 * `format`, fields that do not fit the schema, duplicate ids. Every route reads through here.
 */
import type { z } from 'zod';
import { duplicateFindings } from './duplicates';
import type { Finding } from './findings';
import { MESH_FORMAT, MEMBER_KINDS, MeshSchema, type Mesh } from './schema';

/** The outcome of reading a mesh file: the mesh, or why it was refused. */
export type ParseMeshResult = { ok: true; mesh: Mesh } | { ok: false; findings: Finding[] };

const FORMAT_VERSION = /^trellis\.mesh\/v(\d+)$/;
const CURRENT_VERSION = Number(FORMAT_VERSION.exec(MESH_FORMAT)?.[1]);

/**
 * Reads a mesh file given as JSON text, or as an already parsed value.
 * Defaults of the schema are applied to the returned mesh. Graph problems (a missing head, loops,
 * unknown channel ends) are not checked here: that is {@link validateMesh}'s work.
 */
export function parseMeshFile(input: unknown): ParseMeshResult {
  let raw: unknown = input;
  if (typeof input === 'string') {
    try {
      // A byte order mark is how some editors save UTF-8; it is not part of the JSON.
      raw = JSON.parse(input.replace(/^\uFEFF/, ''));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return refuse({
        code: 'not_json',
        severity: 'error',
        message: `The mesh file is not valid JSON: ${why}.`,
      });
    }
  }
  if (!isRecord(raw)) {
    const message = `A mesh file is a JSON object with format, name, members and channels; this is ${kindOf(raw)}.`;
    return refuse({ code: 'schema_invalid', severity: 'error', message });
  }
  const formatProblem = checkFormat(raw.format);
  if (formatProblem !== undefined) return refuse(formatProblem);

  const result = MeshSchema.safeParse(raw);
  const findings = result.success
    ? []
    : result.error.issues.map((issue) => issueFinding(raw, issue));
  findings.push(...rawDuplicates(raw));
  if (result.success && findings.length === 0) return { ok: true, mesh: result.data };
  return { ok: false, findings };
}

function refuse(finding: Finding): ParseMeshResult {
  return { ok: false, findings: [finding] };
}

function checkFormat(format: unknown): Finding | undefined {
  const base = { code: 'format_unsupported', severity: 'error' } as const;
  if (format === undefined) {
    return {
      ...base,
      message: `The file has no "format"; a mesh file starts with "format": "${MESH_FORMAT}".`,
    };
  }
  if (format === MESH_FORMAT) return undefined;
  const version = typeof format === 'string' ? FORMAT_VERSION.exec(format)?.[1] : undefined;
  if (version !== undefined && Number(version) > CURRENT_VERSION) {
    return {
      ...base,
      message: `The file is in format ${show(format)}, which is newer than this Trellis reads (${MESH_FORMAT}). Update Trellis to import it.`,
    };
  }
  return {
    ...base,
    message: `The format ${show(format)} is not one Trellis reads; expected "${MESH_FORMAT}".`,
  };
}

function rawDuplicates(raw: Record<string, unknown>): Finding[] {
  const members = Array.isArray(raw.members) ? raw.members : [];
  const channels = Array.isArray(raw.channels) ? raw.channels : [];
  const memberIds = members.map((m) => stringField(m, 'id'));
  const channelNames = channels.map(rawChannelName);
  const explicit = new Set(channels.map((c) => stringField(c, 'id')));
  return duplicateFindings(memberIds, channelNames, (name) => explicit.has(name));
}

function issueFinding(raw: Record<string, unknown>, issue: z.core.$ZodIssue): Finding {
  const path = issue.path;
  const [section, index] = path;
  const value = valueAt(raw, path);
  const finding: Finding = { code: 'schema_invalid', severity: 'error', message: '' };
  const list = section === 'members' || section === 'channels' ? raw[section] : undefined;
  const item =
    Array.isArray(list) && typeof index === 'number' ? (list[index] as unknown) : undefined;
  let subject: string;
  let field: string;
  if (section === 'members' && typeof index === 'number') {
    const id = stringField(item, 'id');
    if (id !== undefined) finding.member = id;
    subject = id === undefined ? `The member at position ${index + 1}` : `Member "${id}"`;
    field = fieldPath(path.slice(2));
  } else if (section === 'channels' && typeof index === 'number') {
    const name = rawChannelName(item);
    if (name !== undefined) finding.channel = name;
    subject = name === undefined ? `The channel at position ${index + 1}` : `Channel "${name}"`;
    field = fieldPath(path.slice(2));
  } else {
    subject = 'The mesh';
    field = fieldPath(path);
  }
  finding.message = `${subject}${describeIssue(issue, field, value)}.`;
  return finding;
}

/** The rest of a sentence that starts with the subject, e.g. `: model is missing; expected a string`. */
function describeIssue(issue: z.core.$ZodIssue, field: string, value: unknown): string {
  const at = field === '' ? '' : `: ${field}`;
  switch (issue.code) {
    case 'invalid_type':
      if (field === '') return ` should be ${article(issue.expected)}, not ${kindOf(value)}`;
      if (value === undefined) return `${at} is missing; expected ${article(issue.expected)}`;
      return `${at} should be ${article(issue.expected)}, not ${kindOf(value)}`;
    case 'invalid_union': {
      const options = issue.inclusive === false ? undefined : issue.options;
      if (issue.discriminator === 'kind' && field === 'kind') {
        const what =
          value === undefined
            ? 'has no kind'
            : `has kind ${show(value)}, which Trellis does not know`;
        return ` ${what}; expected one of ${MEMBER_KINDS.join(', ')}`;
      }
      if (issue.discriminator !== undefined && options !== undefined) {
        const allowed = options.map((o) => show(o)).join(', ');
        return `${at} is ${value === undefined ? 'missing' : show(value)}; expected one of ${allowed}`;
      }
      return `${at} does not fit any allowed shape`;
    }
    case 'invalid_value':
      return `${at} is ${value === undefined ? 'missing' : show(value)}; expected one of ${issue.values.map((v) => show(v)).join(', ')}`;
    case 'invalid_format':
      return `${at} is ${show(value)}, which is not valid; ${issue.format === 'url' ? 'expected a URL' : issue.message}`;
    case 'too_small':
    case 'too_big':
      return `${at} is ${show(value)}; ${sizeMessage(issue)}`;
    default:
      return `${at}: ${issue.message}`;
  }
}

function sizeMessage(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string {
  // Messages written in the schema are already plain; zod's own start with "Too small" / "Too big".
  if (!/^Too (small|big)/.test(issue.message)) return issue.message;
  const small = issue.code === 'too_small';
  const limit = String(small ? issue.minimum : issue.maximum);
  const bound = small ? 'at least' : 'at most';
  if (issue.origin === 'string')
    return small && limit === '1' ? 'expected some text' : `expected ${bound} ${limit} characters`;
  if (issue.origin === 'array') return `expected ${bound} ${limit} items`;
  return `expected ${bound} ${limit}`;
}

function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function rawChannelName(channel: unknown): string | undefined {
  const id = stringField(channel, 'id');
  if (id !== undefined) return id;
  const from = stringField(channel, 'from');
  const to = stringField(channel, 'to');
  return from !== undefined && to !== undefined ? `${from}->${to}` : undefined;
}

function stringField(x: unknown, key: string): string | undefined {
  if (!isRecord(x)) return undefined;
  const value = x[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function kindOf(x: unknown): string {
  if (x === undefined) return 'nothing';
  if (x === null) return 'null';
  if (Array.isArray(x)) return x.length === 0 ? 'an empty array' : 'an array';
  return article(typeof x);
}

function article(type: string): string {
  if (type === 'null' || type === 'undefined' || type === 'never') return type;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function show(x: unknown): string {
  if (typeof x === 'string') return JSON.stringify(x.length > 60 ? `${x.slice(0, 57)}...` : x);
  if (typeof x === 'number' || typeof x === 'boolean' || x === null) return String(x);
  return kindOf(x);
}
