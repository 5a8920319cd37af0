/**
 * Test support for the entries: a published mesh, people with tokens, and the HTTP bridges on an
 * ephemeral port, on the engine harness's world (own database and queue prefix per test).
 */
import { addUser } from '@trellis/engine/users/add-user';
import { createPersonalToken } from '@trellis/engine/tokens/create-token';
import { setMeshPublished } from '@trellis/engine/meshes/publish-mesh';
import { SYSTEM_ACTOR } from '@trellis/engine/audit/append';
import type { Engine } from '@trellis/engine/engine';
import { saveOrThrow, WORD_SPLIT, type TestWorld } from '../../engine/test/harness';
import { serveFetch } from '../src/http/node-adapter';
import { bridgeHandler } from '../src/http/routes';

/** A token of a new person with `role`, scoped as wide as the role allows (or `scope`). */
export async function tokenFor(engine: Engine, role: 'admin' | 'designer' | 'operator' | 'viewer', scope?: string): Promise<string> {
  const email = `${role}-${Math.random().toString(36).slice(2, 8)}@x.test`;
  const user = await addUser(engine.db, { email, role, password: 'pw-for-tests-1' });
  const wide = { admin: 'admin', designer: 'run', operator: 'operate', viewer: 'read' }[role];
  const created = await createPersonalToken(engine.db, { id: user.id, email, role }, { name: 'test', scope: scope ?? wide, expiresInDays: 1 });
  return created.token;
}

/** Saves the word-split self-test mesh and publishes it; returns its id. */
export async function publishedWordSplit(world: TestWorld): Promise<string> {
  const meshId = await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
  await setMeshPublished(world.engine.db, { meshId, published: true, actor: SYSTEM_ACTOR });
  return meshId;
}

/** The HTTP bridges on 127.0.0.1, port 0; `close` stops them. */
export async function serveBridges(engine: Engine, waitMs = 20_000): Promise<{ url: string; close(): Promise<void> }> {
  const { server, port } = await serveFetch(bridgeHandler(engine, { waitMs, publicUrl: (req) => new URL(req.url).origin }), { host: '127.0.0.1', port: 0, maxBodyBytes: 1024 * 1024 });
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
