/**
 * meshes.restore: save an old version's file again as the next version (nothing is rewritten).
 * Designers and admins, like any save; a stale `baseVersion` is answered as a conflict.
 */
import { z } from 'zod';
import { restoreMeshVersion } from '@trellis/engine/meshes/mesh-versions';
import { MeshIdSchema, SaveResultSchema } from '../../schemas';
import { designerProcedure } from '../../trpc';

export const restore = designerProcedure
  .input(z.object({ meshId: MeshIdSchema, version: z.number().int().positive(), baseVersion: z.number().int().positive() }))
  .output(SaveResultSchema)
  .mutation(({ ctx, input }) => restoreMeshVersion(ctx.db, { ...input, userId: ctx.user.id }));
