/** Helpers for the ops specs: import a mesh and start a run through the app's own API, as the signed-in admin. */
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
