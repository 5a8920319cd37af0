import { describe, expect, it } from 'vitest';
import { highestParam, hostAllowed, jsonSchemaProblems, memberConfigFindings, templateHost, urlPlaceholders } from './member-config';
import { MemberSchema, type Member } from './schema';

const member = (input: Record<string, unknown>): Member => MemberSchema.parse(input);
const flow = (...steps: Record<string, unknown>[]): Member => member({ id: 'flow', kind: 'workflow', steps });
/** `field: message` of each finding, the whole sentence. */
const said = (m: Member) => memberConfigFindings(m).map((f) => `${f.field ?? ''}: ${f.message}`);

describe('jsonSchemaProblems', () => {
  it.each([
    ['a boolean schema', true, []],
    ['types as a list', { type: ['string', 'null'] }, []],
    ['a nested object with items and enum', { type: 'object', properties: { tags: { type: 'array', items: { enum: ['a', 'b'] } } } }, []],
    ['a list instead of an object', [], ['the schema must be an object']],
    ['null', null, ['the schema must be an object']],
    ['a string', 'object', ['the schema must be an object']],
    ['an unknown type', { type: 'text' }, ['the schema: type "text" is not one of object, array, string, number, integer, boolean, null']],
    ['a type that is not a string', { type: [1] }, ['the schema: type 1 is not one of object, array, string, number, integer, boolean, null']],
    ['required with a non-name', { required: ['a', 3] }, ['the schema: required must be a list of property names']],
    ['enum not a list', { enum: 'a' }, ['the schema: enum must be a list']],
    ['properties as a list', { properties: [] }, ['the schema: properties must be an object of schemas']],
    ['properties as null', { properties: null }, ['the schema: properties must be an object of schemas']],
    [
      'problems deep inside, each with its path',
      { properties: { a: { items: { type: 'x' } }, b: { properties: { c: 4 } } } },
      [
        'properties.a.items: type "x" is not one of object, array, string, number, integer, boolean, null',
        'properties.b.properties.c must be an object',
      ],
    ],
    ['items of the top level', { items: 'x' }, ['items must be an object']],
  ])('%s', (_name, schema, problems) => {
    expect(jsonSchemaProblems(schema)).toEqual(problems);
  });

  it("refuses a schema zod's converter cannot read even when its keywords look right", () => {
    const problems = jsonSchemaProblems({ type: 'object', $ref: '#/nowhere' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).not.toBe('');
  });
});

describe('URL templates and hosts', () => {
  it('lists every placeholder in order, empty ones too', () => {
    expect(urlPlaceholders('https://h/{a.b}/x/{c}?q={}')).toEqual(['a.b', 'c', '']);
    expect(urlPlaceholders('https://h/plain')).toEqual([]);
  });

  it.each([
    ['https://API.example.com:8443/{id}', { host: 'api.example.com:8443' }],
    ['http://h/{id}?q={q}', { host: 'h' }],
    ['not a url', { error: 'is not a URL (expected https://host/path/{field})' }],
    ['file:///etc/passwd', { error: 'uses file:, expected http: or https:' }],
    ['https://{tenant}.example.com/x', { error: 'has a placeholder in the host; only the path and query may vary' }],
    ['https://user@{h}/x', { error: 'has a placeholder in the host; only the path and query may vary' }],
    ['HTTPS://{h}/x', { error: 'has a placeholder in the host; only the path and query may vary' }],
  ])('%s', (template, expected) => {
    expect(templateHost(template)).toEqual(expected);
  });

  it('matches a host by name for any port, or exactly with a port, case-insensitively', () => {
    expect(hostAllowed('API.Example.com', ['api.example.com'])).toBe(true);
    expect(hostAllowed('api.example.com:443', ['API.EXAMPLE.COM:443'])).toBe(true);
    expect(hostAllowed('api.example.com', ['api.example.com:443'])).toBe(false);
    expect(hostAllowed('api.example.com', [])).toBe(false);
    expect(hostAllowed('a.example.com', ['b.example.com', 'a.example.com'])).toBe(true);
  });

  it('reads the highest $n of a query', () => {
    expect(highestParam('select 1')).toBe(0);
    expect(highestParam('select $2, $10, $3')).toBe(10);
  });
});

describe('memberConfigFindings', () => {
  it('names the member, the field and what is wrong, as an error', () => {
    expect(memberConfigFindings(member({ id: 'ask', kind: 'agent', model: 'other' }))).toEqual([
      {
        code: 'member_config_invalid',
        severity: 'error',
        member: 'ask',
        field: 'provider',
        message: 'Member "ask" field provider is missing: model other needs a provider (base URL); only the built-in demo model runs without one.',
      },
    ]);
  });

  it('quotes at most three problems of a broken output schema', () => {
    const schema = { properties: { a: 1, b: 2, c: 3, d: 4 } };
    expect(said(member({ id: 'a', kind: 'agent', model: 'demo', outputSchema: schema }))).toEqual([
      'outputSchema: Member "a" field outputSchema is not a usable JSON Schema: properties.a must be an object; properties.b must be an object; properties.c must be an object.',
    ]);
  });

  it('checks every step by its position, and only the kinds that have settings to check', () => {
    expect(memberConfigFindings(member({ id: 'j', kind: 'combine' }))).toEqual([]);
    expect(
      said(
        flow(
          { type: 'pass' },
          { type: 'agent', model: 'demo', outputSchema: { type: 'nope' } },
          { type: 'http', method: 'GET', url: 'https://h/{a b}', allowHosts: ['h'], body: 'claim.text' },
          { type: 'sql', connection: 'DB', query: 'select 1', params: ['a', 'b'] },
          { type: 'http', method: 'POST', url: 'https://other/x', allowHosts: ['h', 'k'], body: 'claim.text' },
          { type: 'http', method: 'DELETE', url: 'https://h/x', allowHosts: ['h'], body: 'x' },
        ),
      ),
    ).toEqual([
      'steps[1].outputSchema: Member "flow" field steps[1].outputSchema is not a usable JSON Schema: the schema: type "nope" is not one of object, array, string, number, integer, boolean, null.',
      'steps[2].url: Member "flow" field steps[2].url has the placeholder {a b}, which is not a field path like {claim.id}.',
      'steps[2].body: Member "flow" field steps[2].body is set, but a GET request sends no body.',
      'steps[3].params: Member "flow" field steps[3].params lists 2 field(s), but the query uses only up to $0.',
      'steps[4].url: Member "flow" field steps[4].url calls other, which is not in allowHosts (h, k).',
      'steps[5].body: Member "flow" field steps[5].body is set, but a DELETE request sends no body.',
    ]);
  });

  it('accepts a SQL step whose params match its placeholders, and refuses one with too few', () => {
    expect(said(flow({ type: 'sql', connection: 'DB', query: 'select $1, $2', params: ['a', 'b'] }))).toEqual([]);
    expect(said(flow({ type: 'sql', connection: 'DB', query: 'select $1, $3', params: ['a'] }))).toEqual([
      'steps[0].params: Member "flow" field steps[0].params lists 1 field(s), but the query uses up to $3.',
    ]);
  });

  it('refuses an HTTP step whose URL is not http(s), once', () => {
    expect(said(flow({ type: 'http', url: 'ftp://h/x', allowHosts: ['h'] }))).toEqual([
      'steps[0].url: Member "flow" field steps[0].url uses ftp:, expected http: or https:.',
    ]);
  });
});
