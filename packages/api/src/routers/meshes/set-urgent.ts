/**
 * meshes.setUrgent: a mesh's priority default. Runs started while it is on go ahead of normal work
 * on every pool they reach (engine kernel/priority.ts). Designers and admins; recorded in the audit trail.
 */
import { z } from 'zod';
import { actorOf } from '@trellis/engine/audit/append';
import { setMeshUrgent } from '@trellis/engine/meshes/set-urgent';
import { MeshIdSchema } from '../../schemas';
import { designerProcedure } from '../../trpc';

export const setUrgent = designerProcedure
  .input(z.object({ meshId: MeshIdSchema, urgent: z.boolean() }))
  .output(z.object({ meshId: z.string(), name: z.string(), urgent: z.boolean() }))
  .mutation(({ ctx, input }) => setMeshUrgent(ctx.db, { meshId: input.meshId, urgent: input.urgent, actor: actorOf(ctx.user) }));
