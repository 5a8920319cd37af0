/** Meshes over REST v1: the saved meshes, and one mesh's versions (read access). */
import { z } from 'zod';
import { MeshNotFoundError } from '@trellis/engine/errors';
import { getMesh } from '@trellis/engine/meshes/get-mesh';
import { listMeshes } from '@trellis/engine/meshes/list-meshes';
import { MeshIdSchema } from '../schemas';
import { defineRoute } from './contract';
import { IsoTime, iso } from './wire';

const MeshRowSchema = z
  .object({ id: z.string(), name: z.string(), description: z.string().nullable(), latestVersion: z.number().int(), updatedAt: IsoTime })
  .meta({ id: 'MeshRow' });

export const listMeshesRoute = defineRoute({
  method: 'get',
  path: '/api/v1/meshes',
  summary: 'Every saved mesh with its latest version, most recently changed first.',
  auth: 'read',
  response: { status: 200, description: 'The meshes.', schema: z.object({ items: z.array(MeshRowSchema) }) },
  errors: { 401: 'No valid token or session.' },
  async handle({ engine }) {
    const items = await listMeshes((await engine()).db);
    return { items: items.map((m) => ({ id: m.id, name: m.name, description: m.description, latestVersion: m.latestVersion, updatedAt: iso(m.updatedAt) })) };
  },
});

export const meshVersionsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/meshes/{id}/versions',
  summary: "A mesh's saved versions, oldest first.",
  auth: 'read',
  params: z.object({ id: MeshIdSchema.meta({ description: 'Mesh id.' }) }),
  response: {
    status: 200,
    description: 'The mesh and its versions.',
    schema: z.object({
      id: z.string(),
      name: z.string(),
      latestVersion: z.number().int(),
      versions: z.array(z.object({ version: z.number().int(), createdAt: IsoTime, createdBy: z.string().nullable() })),
    }),
  },
  errors: { 401: 'No valid token or session.', 404: 'No such mesh.' },
  async handle({ engine, params }) {
    const view = await getMesh((await engine()).db, { meshId: params.id });
    if (!view) throw new MeshNotFoundError(params.id);
    return { id: view.id, name: view.name, latestVersion: view.latestVersion, versions: view.versions.map((v) => ({ ...v, createdAt: iso(v.createdAt) })) };
  },
});
