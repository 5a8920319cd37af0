/**
 * `trellis webhook add|list|remove` and `trellis schedule add|list|enable|disable|remove`: the
 * entry points an admin sets up from the server's shell (the same use cases as tRPC `webhooks.*`
 * and `schedules.*`; the audit trail records them as the system).
 */
import { SYSTEM_ACTOR } from '@trellis/engine/audit/append';
import { createSchedule, listSchedules, removeSchedule, setScheduleEnabled, type ScheduleView } from '@trellis/engine/schedules/manage-schedules';
import { createWebhook, listWebhooks, removeWebhook } from '@trellis/engine/webhooks/manage-webhooks';
import type { Booted } from '@trellis/engine/runtime/boot';
import { open, settings } from '../boot';
import { CliError, EXIT } from '../fail';

async function withEngine(fn: (booted: Booted) => Promise<void>): Promise<number> {
  const booted = await open(settings());
  try {
    await fn(booted);
    return EXIT.ok;
  } finally {
    await booted.close();
  }
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Makes a webhook and prints its secret once. */
export function webhookAddCommand(name: string, opts: { mesh: string; callback?: string; json?: boolean }): Promise<number> {
  return withEngine(async ({ engine }) => {
    const hook = await createWebhook(engine, { name, mesh: opts.mesh, callbackUrl: opts.callback ?? null, actor: SYSTEM_ACTOR });
    if (opts.json) return print(hook);
    process.stdout.write(`webhook ${hook.name} starts runs of ${hook.meshName} at POST ${hook.path}\nIts secret (shown only now; keep it secret):\n${hook.secret}\n`);
    process.stdout.write('Sign each request: Trellis-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> (or GitHub\'s X-Hub-Signature-256)\n');
  });
}

/** Lists webhooks (never their secrets). */
export function webhookListCommand(opts: { json?: boolean }): Promise<number> {
  return withEngine(async ({ engine }) => {
    const hooks = await listWebhooks(engine);
    if (opts.json) return print({ webhooks: hooks });
    for (const h of hooks) process.stdout.write(`${h.name}  ${h.meshName}  POST ${h.path}${h.callbackUrl ? `  callback ${h.callbackUrl}` : ''}${h.enabled ? '' : '  (disabled)'}\n`);
    process.stdout.write(`${hooks.length} webhooks\n`);
  });
}

/** Removes a webhook and its secret. */
export function webhookRemoveCommand(webhook: string): Promise<number> {
  return withEngine(async ({ engine }) => {
    await removeWebhook(engine, { webhook, actor: SYSTEM_ACTOR });
    process.stdout.write(`webhook ${webhook} removed\n`);
  });
}

function describeSchedule(s: ScheduleView): string {
  const next = s.enabled ? `next ${s.nextAt?.toISOString() ?? 'never'}` : 'disabled';
  return `${s.name}  ${s.meshName}  "${s.cron}" ${s.timezone}  missed: ${s.missed}  ${next}${s.lastError ? `  last error: ${s.lastError}` : ''}`;
}

/** Makes a schedule on a fixed input (text, or a JSON object with --json-input). */
export function scheduleAddCommand(
  name: string,
  opts: { mesh: string; cron: string; timezone?: string; text?: string; jsonInput?: string; missed?: string; json?: boolean },
): Promise<number> {
  if ((opts.text === undefined) === (opts.jsonInput === undefined)) throw new CliError('give exactly one of --text or --json-input');
  let payload: Record<string, unknown> | undefined;
  if (opts.jsonInput !== undefined) {
    try {
      payload = JSON.parse(opts.jsonInput) as Record<string, unknown>;
    } catch {
      throw new CliError('--json-input: not valid JSON');
    }
  }
  return withEngine(async ({ engine }) => {
    const s = await createSchedule(engine, {
      name,
      mesh: opts.mesh,
      cron: opts.cron,
      ...(opts.timezone ? { timezone: opts.timezone } : {}),
      input: payload ? { payload } : { text: opts.text ?? '' },
      ...(opts.missed ? { missed: opts.missed } : {}),
      actor: SYSTEM_ACTOR,
    });
    if (opts.json) return print(s);
    process.stdout.write(`${describeSchedule(s)}\n`);
  });
}

/** Lists schedules with their next tick. */
export function scheduleListCommand(opts: { json?: boolean }): Promise<number> {
  return withEngine(async ({ engine }) => {
    const all = await listSchedules(engine);
    if (opts.json) return print({ schedules: all });
    for (const s of all) process.stdout.write(`${describeSchedule(s)}\n`);
    process.stdout.write(`${all.length} schedules\n`);
  });
}

/** Enables or disables a schedule. */
export function scheduleEnabledCommand(schedule: string, enabled: boolean): Promise<number> {
  return withEngine(async ({ engine }) => {
    process.stdout.write(`${describeSchedule(await setScheduleEnabled(engine, { schedule, enabled, actor: SYSTEM_ACTOR }))}\n`);
  });
}

/** Removes a schedule. */
export function scheduleRemoveCommand(schedule: string): Promise<number> {
  return withEngine(async ({ engine }) => {
    await removeSchedule(engine, { schedule, actor: SYSTEM_ACTOR });
    process.stdout.write(`schedule ${schedule} removed\n`);
  });
}
