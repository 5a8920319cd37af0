import { describe, expect, it } from 'vitest';
import { parseMeshFile } from './parse';

/** A one-member mesh whose workflow has the single `step`. */
function meshWith(step: Record<string, unknown>) {
  return { format: 'trellis.mesh/v1', name: 'm', members: [{ id: 'flow', kind: 'workflow', head: true, steps: [step] }], channels: [] };
}

function messages(step: Record<string, unknown>): string[] {
  const r = parseMeshFile(meshWith(step));
  return r.ok ? [] : r.findings.map((f) => f.message);
}

// Fields that let a mesh reach the server's environment or files (issue 11): refused, naming the field and the replacement.
describe('fields a mesh may no longer use', () => {
  it.each([
    {
      name: 'an HTTP header naming an environment variable',
      step: { type: 'http', url: 'https://a.example/x', allowHosts: ['a.example'], headers: { 'X-K': 'NEXTAUTH_SECRET' } },
      says: 'steps[0].headers.X-K: names the environment variable NEXTAUTH_SECRET, which is no longer read: reference a secret of the secrets store instead, {"secret": "NEXTAUTH_SECRET"}',
    },
    {
      name: 'an agent provider key by environment variable',
      step: { type: 'agent', model: 'm', provider: { baseUrl: 'https://a.example/v1', apiKeyEnv: 'NEXTAUTH_SECRET' } },
      says: 'steps[0].provider.apiKeyEnv: is no longer accepted',
    },
    {
      name: 'a code step writing into a directory of its choice',
      step: { type: 'code', source: 'return 1', writeDir: '/app/packages/engine/sandbox' },
      says: 'steps[0].writeDir: is no longer accepted: the server picks the directory',
    },
  ])('refuses $name', ({ step, says }) => {
    expect(messages(step).join('\n')).toContain(says);
  });

  it('accepts the replacements', () => {
    expect(messages({ type: 'http', url: 'https://a.example/x', allowHosts: ['a.example'], headers: { 'X-K': { secret: 'CRM_TOKEN' } } })).toEqual([]);
    expect(messages({ type: 'agent', model: 'm', provider: { baseUrl: 'https://a.example/v1', apiKeySecret: 'MODEL_KEY' } })).toEqual([]);
    expect(messages({ type: 'code', source: 'return 1', scratchDir: true })).toEqual([]);
  });

  it('refuses a secret reference with anything but a name', () => {
    expect(messages({ type: 'http', url: 'https://a.example/x', allowHosts: ['a.example'], headers: { 'X-K': { secret: 'A', value: 'x' } } }).join('\n')).toContain('steps[0].headers.X-K');
  });
});
