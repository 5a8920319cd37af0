/** tokens.createService (admins): a token for a service account (created with the role given). */
import { z } from 'zod';
import { createServiceToken } from '@trellis/engine/tokens/create-token';
import { IdSchema } from '@trellis/mesh/schema';
import { adminProcedure } from '../../trpc';
import { RoleSchema } from '../users/schemas';
import { CreatedTokenSchema, NewTokenSchema } from './schemas';

export const createService = adminProcedure
  .input(NewTokenSchema.extend({ account: IdSchema, role: RoleSchema, expiresInDays: NewTokenSchema.shape.expiresInDays.nullable() }))
  .output(CreatedTokenSchema.extend({ account: z.string() }))
  .mutation(({ ctx, input }) => createServiceToken(ctx.db, ctx.user, input));
