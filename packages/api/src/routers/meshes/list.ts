/** meshes.list: every mesh with its latest version, most recently changed first. */
import { z } from 'zod';
import { listMeshes } from '@trellis/engine/meshes/list-meshes';
import { viewerProcedure } from '../../trpc';

export const list = viewerProcedure
  .output(
    z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        description: z.string().nullable(),
        latestVersion: z.number().int(),
        updatedAt: z.date(),
      }),
    ),
  )
  .query(({ ctx }) => listMeshes(ctx.db));
