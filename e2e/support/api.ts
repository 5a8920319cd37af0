/** Set-up through the app's own API, as the signed-in admin: import a mesh, start a run. */
import { expect, type Page } from '@playwright/test';

/** Imports a mesh file (tRPC meshes.import) and returns its id. */
export async function importMesh(page: Page, mesh: unknown): Promise<string> {
  const res = await page.request.post('/api/trpc/meshes.import', { data: { json: { text: JSON.stringify(mesh) } } });
  expect(res.status(), await res.text()).toBe(200);
  const body = (await res.json()) as { result: { data: { json: { ok: boolean; meshId?: string } } } };
  const saved = body.result.data.json;
  expect(saved.ok).toBe(true);
  return saved.meshId ?? '';
}

/** Starts a run on a text document (REST /api/v1) and returns its id. */
export async function startRun(page: Page, meshId: string, text: string, name = 'doc.txt'): Promise<string> {
  const res = await page.request.post(`/api/v1/meshes/${meshId}/runs`, { data: text, headers: { 'content-type': 'text/plain', 'x-file-name': name } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { runId: string }).runId;
}

/**
 * Imports a two-member mesh named `<prefix>-<time>` whose second member, `cut` ("Cut words"), splits
 * on a payload field that is never there, so every run on it fails there. Returns the name and id.
 */
export async function importFailingMesh(page: Page, prefix: string): Promise<{ name: string; meshId: string }> {
  const name = `${prefix}-${Date.now().toString(36)}`;
  const meshId = await importMesh(page, {
    format: 'trellis.mesh/v1',
    name,
    members: [
      { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
      { id: 'cut', kind: 'workflow', label: 'Cut words', steps: [{ type: 'split', by: 'word', field: 'missing' }] },
    ],
    channels: [{ from: 'head', to: 'cut' }],
  });
  return { name, meshId };
}
