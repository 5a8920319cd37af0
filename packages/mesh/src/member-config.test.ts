import { describe, expect, it } from 'vitest';
import { hostAllowed, jsonSchemaProblems, templateHost } from './member-config';
import { parseMeshFile } from './parse';
import { MeshSchema, type MeshInput } from './schema';
import { validateMesh } from './validate';

type MemberInput = MeshInput['members'][number];

function findingsOf(member: MemberInput) {
  const mesh = MeshSchema.parse({ format: 'trellis.mesh/v1', name: 'm', members: [{ ...member, head: true }], channels: [] });
  return validateMesh(mesh).filter((f) => f.code === 'member_config_invalid');
}

const flow = (step: Record<string, unknown>): MemberInput => ({ id: 'flow', kind: 'workflow', steps: [{ type: 'pass' }, step] } as MemberInput);

describe('member settings', () => {
  it('accepts a usable output schema and refuses a broken one, naming the member and the field', () => {
    expect(findingsOf({ id: 'a', kind: 'agent', model: 'demo', outputSchema: { type: 'object', properties: { kind: { type: 'string' } }, required: ['kind'] } })).toEqual([]);
    const bad = findingsOf({ id: 'classify', kind: 'agent', model: 'demo', outputSchema: { type: 'object', properties: { kind: { type: 'strng' } } } });
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatchObject({ member: 'classify', field: 'outputSchema', severity: 'error' });
    expect(bad[0]?.message).toContain('properties.kind: type "strng"');
    expect(jsonSchemaProblems({ type: 'object', required: 'kind' })).toEqual(['the schema: required must be a list of property names']);
    expect(jsonSchemaProblems({ properties: 5 })).toEqual(['the schema: properties must be an object of schemas']);
  });

  it('checks the output schema of an agent step too', () => {
    const bad = findingsOf(flow({ type: 'agent', model: 'demo', outputSchema: { type: 'object', items: 3 } }));
    expect(bad[0]).toMatchObject({ member: 'flow', field: 'steps[1].outputSchema' });
  });

  it('refuses an HTTP step whose URL reaches a host not listed, or varies the host', () => {
    const ok = flow({ type: 'http', url: 'https://api.example.com/claims/{claim.id}', allowHosts: ['api.example.com'] });
    expect(findingsOf(ok)).toEqual([]);
    const other = findingsOf(flow({ type: 'http', url: 'https://evil.example.net/x', allowHosts: ['api.example.com'] }));
    expect(other[0]).toMatchObject({ member: 'flow', field: 'steps[1].url' });
    expect(other[0]?.message).toContain('evil.example.net, which is not in allowHosts');
    const varied = findingsOf(flow({ type: 'http', url: 'https://{host}/x', allowHosts: ['api.example.com'] }));
    expect(varied[0]?.message).toContain('placeholder in the host');
    const badPlaceholder = findingsOf(flow({ type: 'http', url: 'https://api.example.com/{a b}', allowHosts: ['api.example.com'] }));
    expect(badPlaceholder[0]?.message).toContain('{a b}');
    expect(templateHost('ftp://x/y')).toEqual({ error: 'uses ftp:, expected http: or https:' });
  });

  it('refuses a model other than demo without a provider, since nothing could run it', () => {
    const bad = findingsOf({ id: 'ask', kind: 'agent', model: 'gpt-nonexistent-9' });
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatchObject({ member: 'ask', field: 'provider', severity: 'error' });
    expect(bad[0]?.message).toContain('model gpt-nonexistent-9 needs a provider (base URL); only the built-in demo model runs without one');
    expect(findingsOf({ id: 'ask', kind: 'agent', model: 'gpt-4o-mini', provider: { baseUrl: 'https://api.example.com/v1', apiKeySecret: 'KEY' } })).toEqual([]);
    expect(findingsOf({ id: 'ask', kind: 'agent', model: 'demo' })).toEqual([]);
    const step = findingsOf(flow({ type: 'agent', model: 'local-llm' }));
    expect(step[0]).toMatchObject({ member: 'flow', field: 'steps[1].provider' });
  });

  it('matches hosts exactly, with or without a port', () => {
    expect(hostAllowed('127.0.0.1:8080', ['127.0.0.1'])).toBe(true);
    expect(hostAllowed('127.0.0.1:8080', ['127.0.0.1:8081'])).toBe(false);
    expect(hostAllowed('api.example.com.evil.net', ['api.example.com'])).toBe(false);
  });

  it('refuses a SQL step whose $n placeholders do not match its params', () => {
    expect(findingsOf(flow({ type: 'sql', connection: 'CLAIMS_DB', query: 'select $1::text', params: ['id'] }))).toEqual([]);
    const bad = findingsOf(flow({ type: 'sql', connection: 'CLAIMS_DB', query: 'select $1, $2', params: ['id'] }));
    expect(bad[0]).toMatchObject({ member: 'flow', field: 'steps[1].params' });
    expect(bad[0]?.message).toContain('uses up to $2');
  });

  it('reports bad step settings from the file reader with the member and the field', () => {
    const text = JSON.stringify({
      format: 'trellis.mesh/v1',
      name: 'm',
      members: [{ id: 'flow', head: true, kind: 'workflow', steps: [{ type: 'code', source: 'return 1', timeoutMs: -5 }] }],
      channels: [],
    });
    const read = parseMeshFile(JSON.parse(text));
    expect(read.ok).toBe(false);
    const finding = read.ok ? undefined : read.findings[0];
    expect(finding?.member).toBe('flow');
    expect(finding?.message).toContain('steps[0].timeoutMs');
  });
});
