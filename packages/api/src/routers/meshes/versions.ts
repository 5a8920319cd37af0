/** meshes.versions: a mesh's saved versions, newest first, with who saved each and when. */
import { z } from 'zod';
import { MeshNotFoundError } from '@trellis/engine/errors';
import { listMeshVersions } from '@trellis/engine/meshes/mesh-versions';
import { MeshIdSchema } from '../../schemas';
import { viewerProcedure } from '../../trpc';

export const versions = viewerProcedure
  .input(z.object({ meshId: MeshIdSchema }))
  .output(
    z.array(
      z.object({
        version: z.number().int(),
        savedAt: z.date(),
        savedBy: z.string().nullable(),
        members: z.number().int(),
        channels: z.number().int(),
      }),
    ),
  )
  .query(async ({ ctx, input }) => {
    const list = await listMeshVersions(ctx.db, input.meshId);
    if (!list) throw new MeshNotFoundError(input.meshId);
    return list;
  });
