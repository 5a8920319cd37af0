/** Export and import of mesh files in the browser. */
import { parseMeshFile, type ParseMeshResult } from '@trellis/mesh/parse';
import type { Mesh } from '@trellis/mesh/schema';

/** Downloads the mesh file as `<name>.json`. */
export function downloadMesh(mesh: Mesh): void {
  const blob = new Blob([`${JSON.stringify(mesh, null, 2)}\n`], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `${mesh.name}.json`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Reads an uploaded mesh file with the same reader the server uses: all or nothing. */
export async function readMeshFile(file: File): Promise<ParseMeshResult> {
  return parseMeshFile(await file.text());
}
