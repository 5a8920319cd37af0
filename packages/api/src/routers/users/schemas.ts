/** Shapes shared by the users procedures. */
import { z } from 'zod';
import { ROLES } from '@trellis/engine/users/roles';

/** One of the four roles. */
export const RoleSchema = z.enum(ROLES);

/** A user named by email or id. */
export const WhoSchema = z.string().trim().min(1, 'user: expected an email or id').max(320);

/** What a change to a user answers. */
export const UserChangeSchema = z.object({ id: z.string(), email: z.string(), role: RoleSchema });
