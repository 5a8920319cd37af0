import { describe, expect, it } from 'vitest';
import { REST_ROUTES, openApiDocument } from './routes';

type Operation = {
  security?: unknown[];
  parameters?: { in: string; name: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: unknown }> }>;
};

type Response = { $ref?: string; content?: Record<string, { schema: unknown }> };
const doc = openApiDocument() as unknown as {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; responses?: Record<string, Response> };
};
const errorRef = { $ref: '#/components/schemas/Error' };
/** A response, or the shared one under components/responses that it references. */
const resolve = (r: Response | undefined): Response | undefined => (r?.$ref ? doc.components.responses?.[r.$ref.replace('#/components/responses/', '')] : r);

describe('OpenAPI document generated from the route contract', () => {
  it('has every route, with its parameters, body, answer and the one error shape', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.values(doc.paths).flatMap((p) => Object.keys(p)).length).toBe(REST_ROUTES.length);
    for (const route of REST_ROUTES) {
      const op = doc.paths[route.path]?.[route.method];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      if (!op) continue;
      const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect((op.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, p.required])).toEqual(pathParams.map((n) => [n, true]));
      for (const name of Object.keys(route.query?.shape ?? {})) expect(op.parameters?.some((p) => p.in === 'query' && p.name === name), name).toBe(true);
      expect(Boolean(op.requestBody), `${route.path} body`).toBe(Boolean(route.body));
      const ok = op.responses[String(route.response.status)]?.content?.['application/json']?.schema;
      expect(ok, `${route.path} answer`).toBeTruthy();
      for (const status of [...Object.keys(route.errors), 'default']) {
        expect(resolve(op.responses[status])?.content?.['application/json']?.schema, `${route.path} ${status}`).toEqual(errorRef);
      }
    }
    expect(doc.components.schemas.Error).toMatchObject({ required: ['error'] });
  });

  it('documents what the handlers check: the claim query bounds and the bodies of complete and fail', () => {
    const claim = doc.paths['/api/v1/services/{name}/claim']?.post;
    expect(claim?.parameters?.find((p) => p.name === 'wait')).toMatchObject({ schema: { minimum: 0, maximum: 30 } });
    const complete = doc.paths['/api/v1/services/{name}/jobs/{jobId}/complete']?.post?.requestBody?.content['application/json']?.schema;
    expect(complete).toMatchObject({ required: ['output'], additionalProperties: false });
    const fail = doc.paths['/api/v1/services/{name}/jobs/{jobId}/fail']?.post?.requestBody?.content['application/json']?.schema;
    expect(fail).toMatchObject({ properties: { reason: { type: 'string', minLength: 1 }, retryable: { type: 'boolean' } }, required: ['reason'] });
    const upload = doc.paths['/api/v1/meshes/{id}/runs']?.post;
    expect(Object.keys(upload?.requestBody?.content ?? {}).sort()).toEqual(['application/json', 'application/octet-stream', 'multipart/form-data']);
    expect(upload?.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(['path:id', 'query:version', 'header:x-file-name', 'header:idempotency-key']);
    expect(upload?.security).toEqual([{ apiToken: [] }, { session: [] }]);
  });

  it('documents the webhook signature forms and the run answer', () => {
    const hook = doc.paths['/api/v1/hooks/{id}']?.post;
    expect(hook?.security).toEqual([{ webhookSignature: [] }, { githubSignature: [] }]);
    expect(Object.keys(hook?.requestBody?.content ?? {})).toEqual(['*/*']);
    const schemes = (doc.components as unknown as { securitySchemes: Record<string, { name?: string }> }).securitySchemes;
    expect(schemes.webhookSignature?.name).toBe('Trellis-Signature');
    expect(schemes.githubSignature?.name).toBe('X-Hub-Signature-256');
    expect(doc.components.schemas.RunAnswer).toMatchObject({ required: expect.arrayContaining(['runId', 'status', 'ended', 'cause', 'counts', 'output']) as unknown });
    const wait = doc.paths['/api/v1/runs/{id}']?.get?.parameters?.find((p) => p.name === 'wait');
    expect(wait).toMatchObject({ schema: { minimum: 0, maximum: 60 } });
  });
});
