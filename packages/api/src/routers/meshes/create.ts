/**
 * meshes.create: an empty mesh under a new name. Based on "version 0", so a name that is already
 * taken comes back as a conflict instead of silently adding a version to someone else's mesh.
 */
import { z } from 'zod';
import { saveMesh } from '@trellis/engine/meshes/save-mesh';
import { IdSchema, MESH_FORMAT } from '@trellis/mesh/schema';
import { SaveResultSchema } from '../../schemas';
import { designerProcedure } from '../../trpc';

export const create = designerProcedure
  .input(z.object({ name: IdSchema, description: z.string().max(4000).optional() }))
  .output(SaveResultSchema)
  .mutation(({ ctx, input }) =>
    saveMesh(ctx.db, {
      name: input.name,
      baseVersion: 0,
      definition: { format: MESH_FORMAT, ...input, members: [], channels: [] },
      userId: ctx.user.id,
    }),
  );
