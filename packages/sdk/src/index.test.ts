import { describe, expect, it } from 'vitest';
import { createServiceClient, JobFailure, TrellisApiError, type ServiceJob } from './index';

/** An in-memory stand-in for the service API: hands out `jobs` once each and records the calls. */
function fakeApi(jobs: ServiceJob[], status = 200) {
  const calls: { path: string; auth: string | null; body: unknown }[] = [];
  const fetcher: typeof fetch = async (input, init) => {
    const req = new Request(input instanceof Request ? input : String(input), init);
    const url = new URL(req.url);
    const body: unknown = JSON.parse((await req.text()) || '{}');
    calls.push({ path: `${url.pathname}${url.search}`, auth: req.headers.get('authorization'), body });
    if (status !== 200) return Response.json({ error: { code: 'service_unauthorized', message: 'wrong key' } }, { status });
    if (url.pathname.endsWith('/claim')) {
      const job = jobs.shift() ?? null;
      if (!job) await new Promise((r) => setTimeout(r, 20));
      return Response.json({ job });
    }
    const jobId = decodeURIComponent(url.pathname.split('/')[6] ?? '');
    return Response.json({ jobId, status: url.pathname.endsWith('/complete') ? 'done' : 'failed', duplicate: false });
  };
  return { fetcher, calls };
}

const job = (jobId: string, payload: unknown): ServiceJob => ({ jobId, runId: 'r1', member: 'check', payload, attempt: 1, leaseUntil: new Date().toISOString() });

describe('service client', () => {
  it('serves jobs: answers with the handler, fails a throwing one, sends the key, and stops', async () => {
    const api = fakeApi([job('j/1', { n: 1 }), job('j2', { n: 2 }), job('j3', { n: 3 })]);
    const client = createServiceClient({ baseUrl: 'http://t.test', service: 'records check', apiKey: 'k1', fetch: api.fetcher });
    const serving = client.serve((j) => {
      const n = (j.payload as { n: number }).n;
      if (n === 2) throw new JobFailure('register closed', true);
      if (n === 3) throw new Error('bug');
      return { doubled: n * 2 };
    }, { waitSeconds: 1 });
    while (api.calls.filter((c) => !c.path.includes('/claim')).length < 3) await new Promise((r) => setTimeout(r, 5));
    await serving.stop();
    const answers = api.calls.filter((c) => !c.path.includes('/claim'));
    expect(answers).toEqual([
      { path: '/api/v1/services/records%20check/jobs/j%2F1/complete', auth: 'Bearer k1', body: { output: { doubled: 2 } } },
      { path: '/api/v1/services/records%20check/jobs/j2/fail', auth: 'Bearer k1', body: { reason: 'register closed', retryable: true } },
      { path: '/api/v1/services/records%20check/jobs/j3/fail', auth: 'Bearer k1', body: { reason: 'bug', retryable: false } },
    ]);
    expect(api.calls[0]?.path).toBe('/api/v1/services/records%20check/claim?wait=1');
  });

  it('ends the loop on a wrong key with the API error', async () => {
    const api = fakeApi([], 401);
    const client = createServiceClient({ baseUrl: 'http://t.test', service: 's', apiKey: 'bad', fetch: api.fetcher });
    const err = await client.serve(() => null).done.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrellisApiError);
    expect((err as TrellisApiError).status).toBe(401);
  });

  it('refuses a base URL that is not http(s)', () => {
    expect(() => createServiceClient({ baseUrl: 'ftp://x', service: 's', apiKey: 'k' })).toThrow(/http\(s\)/);
  });
});
