/** The shape of one Action Center item, shared by the card and its parts (no component imports another back). */
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@trellis/api/root';

/** An item as `actions.list` lists it. */
export type ActionItem = inferRouterOutputs<AppRouter>['actions']['list'][number];
