/** Shapes shared by the tokens procedures. */
import { z } from 'zod';
import { MAX_EXPIRY_DAYS } from '@trellis/engine/tokens/create-token';
import { SCOPES } from '@trellis/engine/tokens/scopes';

/** One of the token scopes. */
export const ScopeSchema = z.enum(SCOPES);

/** A token's name, scope and expiry. */
export const NewTokenSchema = z.object({
  name: z.string().trim().min(1).max(100),
  scope: ScopeSchema,
  expiresInDays: z.number().int().min(1).max(MAX_EXPIRY_DAYS),
});

/** A token just created; `token` is shown this once. */
export const CreatedTokenSchema = z.object({ id: z.string(), token: z.string(), prefix: z.string(), scope: ScopeSchema, expiresAt: z.date().nullable() });

/** A token as listed. */
export const TokenViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scope: ScopeSchema,
  owner: z.string(),
  ownerKind: z.enum(['person', 'service']),
  expiresAt: z.date().nullable(),
  lastUsedAt: z.date().nullable(),
  revokedAt: z.date().nullable(),
  createdAt: z.date(),
});
