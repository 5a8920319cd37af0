/**
 * meshes.setPublished: offer a mesh to other systems as an MCP tool and an A2A agent
 * (packages/entries), or withdraw it. Designers and admins; recorded in the audit trail.
 */
import { z } from 'zod';
import { actorOf } from '@trellis/engine/audit/append';
import { setMeshPublished } from '@trellis/engine/meshes/publish-mesh';
import { MeshIdSchema } from '../../schemas';
import { designerProcedure } from '../../trpc';

export const setPublished = designerProcedure
  .input(z.object({ meshId: MeshIdSchema, published: z.boolean() }))
  .output(z.object({ meshId: z.string(), name: z.string(), published: z.boolean() }))
  .mutation(({ ctx, input }) => setMeshPublished(ctx.db, { meshId: input.meshId, published: input.published, actor: actorOf(ctx.user) }));
