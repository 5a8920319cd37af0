/** Editor helpers: small meshes to import, and the canvas's mesh file read back through Export. */
import { readFile } from 'node:fs/promises';
import { expect, type Page } from '@playwright/test';
import { importMesh } from './api';

export interface MeshFile {
  name: string;
  members: { id: string; head?: boolean; label?: string; kind: string }[];
  channels: { id?: string; from: string; to: string; when?: string }[];
  layout?: Record<string, { x: number; y: number }>;
}

/** A three-member mesh: a (head) → b under `x > 1`, a → c as channel `to-c` under `kind == 'y'`, b → c. */
export function threeMembers(name: string): MeshFile {
  const wf = (id: string) => ({ id, kind: 'workflow', steps: [{ type: 'pass' }] });
  return {
    name,
    members: [{ ...wf('a'), head: true }, wf('b'), wf('c')],
    channels: [
      { from: 'a', to: 'b', when: 'x > 1' },
      { id: 'to-c', from: 'a', to: 'c', when: "kind == 'y'" },
      { from: 'b', to: 'c' },
    ],
    layout: { a: { x: 0, y: 0 }, b: { x: -150, y: 200 }, c: { x: 150, y: 400 } },
  };
}

/** Imports `mesh` and opens it on the canvas; returns the mesh id. */
export async function openImported(page: Page, mesh: MeshFile): Promise<string> {
  const meshId = await importMesh(page, { format: 'trellis.mesh/v1', ...mesh });
  await page.goto(`/meshes/${meshId}`);
  await expect(page.getByTestId('mesh-name')).toHaveText(mesh.name);
  return meshId;
}

/** The mesh file the canvas holds now (unsaved edits included), read from the Export download. */
export async function exported(page: Page): Promise<MeshFile> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('mesh-export').click()]);
  return JSON.parse(await readFile(await download.path(), 'utf8')) as MeshFile;
}

/** Ids of the edges React Flow draws, sorted. */
export async function edgeIds(page: Page): Promise<string[]> {
  const ids = await page.locator('.react-flow__edge').evaluateAll((els) => els.map((e) => e.getAttribute('data-id') ?? ''));
  return ids.sort();
}
