/** actions.people: who an item can be assigned to. */
import { z } from 'zod';
import { listPeople } from '@trellis/engine/ops/list-people';
import { viewerProcedure } from '../../trpc';

export const people = viewerProcedure
  .output(z.array(z.object({ id: z.string(), name: z.string(), email: z.string() })))
  .query(({ ctx }) => listPeople(ctx.db));
