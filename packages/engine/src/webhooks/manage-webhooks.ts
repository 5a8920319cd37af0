/**
 * Use cases: create, list and remove signed webhooks (admins and designers). A webhook's secret is
 * `whsec_` and 32 random bytes in hex, shown once at creation, and stored sealed in the secrets
 * store as `webhook_<id hex>` with the host list `trellis-webhook.invalid` (a reserved name that
 * resolves nowhere, RFC 2606), so a mesh naming it can send it to no host.
 */
import { randomBytes } from 'node:crypto';
import { asc, eq, or } from 'drizzle-orm';
import { meshes } from '@trellis/db/schema/meshes';
import { webhooks } from '@trellis/db/schema/webhooks';
import { deleteSecret } from '../policy/secrets';
import { IdSchema } from '@trellis/mesh/schema';
import { recordAudit, type AuditActor } from '../audit/append';
import type { Engine } from '../kernel/engine';
import { BadInputError, MeshNotFoundError } from '../kernel/errors';
import { uuidv7 } from '../kernel/ids';
import { EntryNotFoundError } from './errors';

/** The host a webhook secret is filed under: it names no real host. */
export const WEBHOOK_SECRET_HOST = 'trellis-webhook.invalid';

/** A webhook as people see it (never its secret). */
export interface WebhookView {
  id: string;
  name: string;
  meshId: string;
  meshName: string;
  /** Where requests go: `POST <Trellis URL>/api/v1/hooks/<id>`. */
  path: string;
  callbackUrl: string | null;
  enabled: boolean;
  createdBy: string;
  createdAt: Date;
}

/** The store name of a webhook's secret. */
export function webhookSecretName(id: string): string {
  return `webhook_${id.replace(/-/g, '')}`;
}

/** `url` when it is an http(s) URL without credentials. @throws BadInputError naming `callbackUrl`. */
function checkCallback(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new BadInputError(`callbackUrl: ${JSON.stringify(url)} is not a URL`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new BadInputError('callbackUrl: expected an http or https URL');
  if (u.username || u.password) throw new BadInputError('callbackUrl: must not carry a user name or password');
  return u.toString();
}

/**
 * Creates a webhook starting runs of `mesh` (id or name). The callback URL is checked here for
 * form, and against the egress policy on every send.
 * @returns the view and the secret, shown this once.
 * @throws BadInputError naming the field; MeshNotFoundError.
 */
export async function createWebhook(
  engine: Engine,
  input: { name: string; mesh: string; callbackUrl?: string | null | undefined; actor: AuditActor },
): Promise<WebhookView & { secret: string }> {
  const name = IdSchema.safeParse(input.name);
  if (!name.success) throw new BadInputError('name: expected 1-63 letters, digits, "-" or "_"');
  const [mesh] = await engine.db.select({ id: meshes.id, name: meshes.name }).from(meshes).where(or(eq(meshes.id, input.mesh), eq(meshes.name, input.mesh))).limit(1);
  if (!mesh) throw new MeshNotFoundError(input.mesh);
  const callbackUrl = input.callbackUrl ? checkCallback(input.callbackUrl) : null;
  const [taken] = await engine.db.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.name, name.data));
  if (taken) throw new BadInputError(`name: a webhook named ${name.data} exists already`);
  const id = uuidv7();
  const secret = `whsec_${randomBytes(32).toString('hex')}`;
  const secretName = webhookSecretName(id);
  await engine.guard.store({ kind: 'secret', name: secretName, value: secret, hosts: [WEBHOOK_SECRET_HOST], by: input.actor.email ?? input.actor.id ?? 'system' });
  const [row] = await engine.db.insert(webhooks).values({ id, name: name.data, meshId: mesh.id, secretName, callbackUrl, createdBy: input.actor.id ?? 'system' }).returning();
  if (!row) throw new Error(`the webhook ${name.data} was not stored`);
  await recordAudit(engine.db, { actor: input.actor, action: 'webhook.create', target: id, detail: { name: name.data, mesh: mesh.name, callbackUrl } });
  return { ...view(row, mesh.name), secret };
}

function view(row: typeof webhooks.$inferSelect, meshName: string): WebhookView {
  return {
    id: row.id,
    name: row.name,
    meshId: row.meshId,
    meshName,
    path: `/api/v1/hooks/${row.id}`,
    callbackUrl: row.callbackUrl,
    enabled: row.enabled,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
  };
}

/** Every webhook, by name. */
export async function listWebhooks(engine: Engine): Promise<WebhookView[]> {
  const rows = await engine.db
    .select({ w: webhooks, meshName: meshes.name })
    .from(webhooks)
    .leftJoin(meshes, eq(meshes.id, webhooks.meshId))
    .orderBy(asc(webhooks.name));
  return rows.map((r) => view(r.w, r.meshName ?? '(removed mesh)'));
}

/** Removes a webhook (by id or name) and its secret. @throws EntryNotFoundError. */
export async function removeWebhook(engine: Engine, input: { webhook: string; actor: AuditActor }): Promise<{ id: string }> {
  const where = or(eq(webhooks.id, input.webhook), eq(webhooks.name, input.webhook));
  const [gone] = await engine.db.delete(webhooks).where(where).returning();
  if (!gone) throw new EntryNotFoundError(`webhook ${input.webhook}`);
  await deleteSecret(engine.db, 'secret', gone.secretName);
  await recordAudit(engine.db, { actor: input.actor, action: 'webhook.remove', target: gone.id, detail: { name: gone.name } });
  return { id: gone.id };
}
