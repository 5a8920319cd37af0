/**
 * Checks of member settings that the mesh file's schema cannot express: an agent's output schema
 * must be a usable JSON Schema and name a provider unless it is the demo model, an HTTP step's URL must reach only its listed hosts, a SQL step's
 * `$n` placeholders must match its params. Each finding names the member and the field.
 */
import { z } from 'zod';
import type { Finding } from './findings';
import { FieldPathSchema, type HttpStep, type Member, type SqlStep } from './schema';

const JSON_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

/**
 * Problems with a JSON Schema as an agent's output schema, as short phrases (empty when usable).
 * Checks the keywords Trellis relies on (`type`, `properties`, `required`, `items`, `enum`) at every
 * level, then that zod's `z.fromJSONSchema` accepts the whole schema (the engine's converter).
 */
export function jsonSchemaProblems(schema: unknown): string[] {
  const problems: string[] = [];
  walk(schema, '', problems);
  if (problems.length === 0) {
    try {
      z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (err) {
      problems.push(err instanceof Error ? err.message : String(err));
    }
  }
  return problems;
}

function walk(node: unknown, at: string, problems: string[]): void {
  const where = at === '' ? 'the schema' : at;
  if (typeof node === 'boolean') return;
  if (typeof node !== 'object' || node === null || Array.isArray(node)) {
    problems.push(`${where} must be an object`);
    return;
  }
  const s = node as Record<string, unknown>;
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    for (const t of types) {
      if (typeof t !== 'string' || !JSON_TYPES.has(t)) {
        problems.push(`${where}: type ${JSON.stringify(t)} is not one of ${[...JSON_TYPES].join(', ')}`);
      }
    }
  }
  if (s.required !== undefined && !(Array.isArray(s.required) && s.required.every((r) => typeof r === 'string'))) {
    problems.push(`${where}: required must be a list of property names`);
  }
  if (s.enum !== undefined && !Array.isArray(s.enum)) problems.push(`${where}: enum must be a list`);
  if (s.properties !== undefined) {
    if (typeof s.properties !== 'object' || s.properties === null || Array.isArray(s.properties)) {
      problems.push(`${where}: properties must be an object of schemas`);
    } else {
      for (const [k, v] of Object.entries(s.properties)) walk(v, `${at}${at ? '.' : ''}properties.${k}`, problems);
    }
  }
  if (s.items !== undefined) walk(s.items, `${at}${at ? '.' : ''}items`, problems);
}

/** Every `{field.path}` placeholder of a URL template, in order. */
export function urlPlaceholders(template: string): string[] {
  return [...template.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1] ?? '');
}

/**
 * The host (`name` or `name:port`) of a URL template, read with placeholders blanked out, or an
 * error phrase when the template is not an http(s) URL or puts a placeholder in the host.
 */
export function templateHost(template: string): { host: string } | { error: string } {
  let url: URL;
  try {
    url = new URL(template.replace(/\{[^{}]*\}/g, 'x'));
  } catch {
    return { error: 'is not a URL (expected https://host/path/{field})' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: `uses ${url.protocol}, expected http: or https:` };
  const authority = template.replace(/^[a-z]+:\/\//i, '').split(/[/?#]/)[0] ?? '';
  if (authority.includes('{')) return { error: 'has a placeholder in the host; only the path and query may vary' };
  return { host: url.host };
}

/** True when `host` (`name` or `name:port`) is allowed by the list: an exact `name:port`, or `name` for any port. */
export function hostAllowed(host: string, allow: readonly string[]): boolean {
  const name = host.replace(/:\d+$/, '').toLowerCase();
  return allow.some((a) => {
    const entry = a.toLowerCase();
    return entry.includes(':') ? entry === host.toLowerCase() : entry === name;
  });
}

/** Highest `$n` used in a SQL query (0 when none). */
export function highestParam(query: string): number {
  let max = 0;
  for (const m of query.matchAll(/\$(\d+)/g)) max = Math.max(max, Number(m[1]));
  return max;
}

/**
 * The built-in deterministic model, the only one that runs without a provider: the engine has no
 * default endpoint (packages/engine/src/members/agent/provider.ts refuses a member without `provider`).
 */
export const DEMO_MODEL = 'demo';

/**
 * Findings (`member_config_invalid`, error) for one member: the output schema of an agent or of an
 * agent step, a model other than `demo` without a provider, and the URL or query of HTTP and SQL steps. `field` is the path inside the member,
 * such as `outputSchema` or `steps[2].url`.
 */
export function memberConfigFindings(member: Member): Finding[] {
  const found: Finding[] = [];
  const add = (field: string, what: string) =>
    found.push({
      code: 'member_config_invalid',
      severity: 'error',
      member: member.id,
      field,
      message: `Member "${member.id}" field ${field} ${what}.`,
    });
  const checkSchema = (field: string, schema: unknown) => {
    if (schema === undefined) return;
    const problems = jsonSchemaProblems(schema);
    if (problems.length > 0) add(field, `is not a usable JSON Schema: ${problems.slice(0, 3).join('; ')}`);
  };
  const checkProvider = (field: string, agent: { model: string; provider?: unknown }) => {
    if (agent.model === DEMO_MODEL || agent.provider !== undefined) return;
    add(field, `is missing: model ${agent.model} needs a provider (base URL); only the built-in ${DEMO_MODEL} model runs without one`);
  };
  if (member.kind === 'agent') {
    checkSchema('outputSchema', member.outputSchema);
    checkProvider('provider', member);
  }
  if (member.kind !== 'workflow') return found;
  member.steps.forEach((step, i) => {
    const at = `steps[${i}]`;
    if (step.type === 'agent') {
      checkSchema(`${at}.outputSchema`, step.outputSchema);
      checkProvider(`${at}.provider`, step);
    }
    if (step.type === 'http') httpFindings(step, at, add);
    if (step.type === 'sql') sqlFindings(step, at, add);
  });
  return found;
}

function httpFindings(step: HttpStep, at: string, add: (field: string, what: string) => void): void {
  for (const p of urlPlaceholders(step.url)) {
    if (!FieldPathSchema.safeParse(p).success) add(`${at}.url`, `has the placeholder {${p}}, which is not a field path like {claim.id}`);
  }
  const host = templateHost(step.url);
  if ('error' in host) add(`${at}.url`, host.error);
  else if (!hostAllowed(host.host, step.allowHosts)) {
    add(`${at}.url`, `calls ${host.host}, which is not in allowHosts (${step.allowHosts.join(', ')})`);
  }
  if (step.body !== undefined && (step.method === 'GET' || step.method === 'DELETE')) {
    add(`${at}.body`, `is set, but a ${step.method} request sends no body`);
  }
}

function sqlFindings(step: SqlStep, at: string, add: (field: string, what: string) => void): void {
  const highest = highestParam(step.query);
  if (highest > step.params.length) {
    add(`${at}.params`, `lists ${step.params.length} field(s), but the query uses up to $${highest}`);
  } else if (highest < step.params.length) {
    add(`${at}.params`, `lists ${step.params.length} field(s), but the query uses only up to $${highest}`);
  }
}
