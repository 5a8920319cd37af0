/**
 * Managing entry points over tRPC, as designers do: webhooks (the secret answered once, never
 * listed) and schedules (bad cron and time zone refused naming the field), each change audited.
 */
import { describe, expect, it } from 'vitest';
import { like } from 'drizzle-orm';
import { auditLog } from '@trellis/db/schema/audit-log';
import { secrets } from '@trellis/db/schema/secrets';
import { addUser } from '@trellis/engine/users/add-user';
import { saveOrThrow, useWorlds, WORD_SPLIT } from '../../../engine/test/harness';
import { appRouter } from '../root';

describe('webhooks and schedules over tRPC', () => {
  const worlds = useWorlds();

  it('create, list and remove them; the secret is answered once and kept sealed', async () => {
    const world = await worlds.open();
    await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
    const user = await addUser(world.engine.db, { email: 'designer@admin.test', role: 'designer', password: 'admin-test-password' });
    const as = appRouter.createCaller({ session: { userId: user.id, sessionVersion: 1 }, db: world.engine.db, engine: world.engine });

    const hook = await as.webhooks.create({ name: 'orders', mesh: 'word-split', callbackUrl: 'https://example.com/done' });
    expect(hook).toMatchObject({ name: 'orders', meshName: 'word-split', path: `/api/v1/hooks/${hook.id}`, callbackUrl: 'https://example.com/done' });
    const listed = await as.webhooks.list();
    expect(listed.map((h) => h.name)).toEqual(['orders']);
    expect(JSON.stringify(listed)).not.toContain(hook.secret);
    const sealed = await world.engine.db.select().from(secrets);
    expect(sealed.map((s) => [s.name.startsWith('webhook_'), s.hosts])).toEqual([[true, ['trellis-webhook.invalid']]]);
    expect(JSON.stringify(sealed)).not.toContain(hook.secret.slice(6));
    await expect(as.webhooks.create({ name: 'bad', mesh: 'word-split', callbackUrl: 'ftp://x' })).rejects.toThrow('callbackUrl: expected an http or https URL');
    await as.webhooks.remove({ webhook: 'orders' });
    expect(await as.webhooks.list()).toEqual([]);
    expect(await world.engine.db.select().from(secrets)).toEqual([]);

    const s = await as.schedules.create({ name: 'nightly', mesh: 'word-split', cron: '0 2 * * *', timezone: 'Europe/Paris', input: { text: 'night' }, missed: 'run_once' });
    expect(s).toMatchObject({ name: 'nightly', enabled: true, missed: 'run_once', timezone: 'Europe/Paris' });
    expect(s.nextAt?.getTime()).toBeGreaterThan(Date.now());
    await expect(as.schedules.create({ name: 'x', mesh: 'word-split', cron: '0 25 * * *', input: { text: 'x' } })).rejects.toThrow(/^cron: "0 25 \* \* \*" is not a cron expression/);
    await expect(as.schedules.create({ name: 'x', mesh: 'word-split', cron: '0 2 * * *', timezone: 'Atlantis', input: { text: 'x' } })).rejects.toThrow(/^timezone:/);
    expect((await as.schedules.setEnabled({ schedule: 'nightly', enabled: false })).enabled).toBe(false);
    expect((await as.schedules.list()).map((x) => [x.name, x.enabled])).toEqual([['nightly', false]]);
    await as.schedules.remove({ schedule: 'nightly' });
    await expect(as.schedules.remove({ schedule: 'nightly' })).rejects.toThrow('no schedule nightly');

    const audit = await world.engine.db.select().from(auditLog).where(like(auditLog.action, 'webhook.%'));
    expect(audit.map((a) => [a.action, a.actorEmail])).toEqual([
      ['webhook.create', 'designer@admin.test'],
      ['webhook.remove', 'designer@admin.test'],
    ]);
    expect((await world.engine.db.select().from(auditLog).where(like(auditLog.action, 'schedule.%'))).map((a) => a.action)).toEqual(['schedule.create', 'schedule.disable', 'schedule.remove']);
  });
});
