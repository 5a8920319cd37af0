/**
 * Use cases: create, list, enable or disable, and remove schedules (admins and designers). The
 * input is fixed at creation and checked then as a run's input is (`inputPayload`), so a schedule
 * never ticks into a refusal its author could have seen.
 */
import { asc, eq, or } from 'drizzle-orm';
import { meshes } from '@trellis/db/schema/meshes';
import { schedules } from '@trellis/db/schema/schedules';
import { IdSchema } from '@trellis/mesh/schema';
import { recordAudit, type AuditActor } from '../audit/append';
import type { Engine } from '../kernel/engine';
import { BadInputError, MeshNotFoundError } from '../kernel/errors';
import { uuidv7 } from '../kernel/ids';
import { inputPayload } from '../kernel/input';
import { EntryNotFoundError } from '../webhooks/errors';
import { nextTick, parseCron } from './cron';

/** What happens to ticks that passed while no orchestrator ran. */
export const MISSED_POLICIES = ['skip', 'run_once'] as const;
/** One of {@link MISSED_POLICIES}. */
export type MissedPolicy = (typeof MISSED_POLICIES)[number];

/** A schedule's fixed input: text or a JSON object, with an optional name for people. */
export interface ScheduleInput {
  name?: string;
  text?: string;
  payload?: Record<string, unknown>;
}

/** A schedule as people see it. */
export interface ScheduleView {
  id: string;
  name: string;
  meshId: string;
  meshName: string;
  cron: string;
  timezone: string;
  input: ScheduleInput;
  missed: MissedPolicy;
  enabled: boolean;
  nextAt: Date | null;
  lastTickAt: Date | null;
  lastRunId: string | null;
  lastError: string | null;
  createdBy: string;
  createdAt: Date;
}

/**
 * Creates a schedule of `mesh` (id or name); the first tick is the first after now.
 * @throws BadInputError naming the field (name, cron, timezone, missed, input); MeshNotFoundError;
 *   InputRejectedError for an input no run would take.
 */
export async function createSchedule(
  engine: Engine,
  input: { name: string; mesh: string; cron: string; timezone?: string; input: ScheduleInput; missed?: string; actor: AuditActor },
): Promise<ScheduleView> {
  const name = IdSchema.safeParse(input.name);
  if (!name.success) throw new BadInputError('name: expected 1-63 letters, digits, "-" or "_"');
  const timezone = input.timezone ?? 'UTC';
  const cron = parseCron(input.cron, timezone);
  const missed = MISSED_POLICIES.find((m) => m === (input.missed ?? 'skip'));
  if (!missed) throw new BadInputError(`missed: expected one of ${MISSED_POLICIES.join(', ')}`);
  if ((input.input.text === undefined) === (input.input.payload === undefined)) throw new BadInputError('input: give exactly one of text or payload');
  inputPayload({ ...(input.input.text !== undefined ? { text: input.input.text } : { payload: input.input.payload }) });
  const [mesh] = await engine.db.select({ id: meshes.id, name: meshes.name }).from(meshes).where(or(eq(meshes.id, input.mesh), eq(meshes.name, input.mesh))).limit(1);
  if (!mesh) throw new MeshNotFoundError(input.mesh);
  const [taken] = await engine.db.select({ id: schedules.id }).from(schedules).where(eq(schedules.name, name.data));
  if (taken) throw new BadInputError(`name: a schedule named ${name.data} exists already`);
  const id = uuidv7();
  const [row] = await engine.db
    .insert(schedules)
    .values({ id, name: name.data, meshId: mesh.id, cron: input.cron, timezone, input: input.input, missed, nextAt: nextTick(cron, new Date()), createdBy: input.actor.id ?? 'system' })
    .returning();
  if (!row) throw new Error(`the schedule ${name.data} was not stored`);
  await recordAudit(engine.db, { actor: input.actor, action: 'schedule.create', target: id, detail: { name: name.data, mesh: mesh.name, cron: input.cron, timezone, missed } });
  return view(row, mesh.name);
}

function view(row: typeof schedules.$inferSelect, meshName: string): ScheduleView {
  const { input, missed, ...rest } = row;
  return { ...rest, input, missed: missed as MissedPolicy, meshName };
}

/** Every schedule, by name. */
export async function listSchedules(engine: Engine): Promise<ScheduleView[]> {
  const rows = await engine.db.select({ s: schedules, meshName: meshes.name }).from(schedules).leftJoin(meshes, eq(meshes.id, schedules.meshId)).orderBy(asc(schedules.name));
  return rows.map((r) => view(r.s, r.meshName ?? '(removed mesh)'));
}

/**
 * Enables or disables a schedule (by id or name). Enabling starts from the first tick after now:
 * ticks that passed while it was disabled are not missed ticks.
 * @throws EntryNotFoundError.
 */
export async function setScheduleEnabled(engine: Engine, input: { schedule: string; enabled: boolean; actor: AuditActor }): Promise<ScheduleView> {
  const [row] = await engine.db.select().from(schedules).where(or(eq(schedules.id, input.schedule), eq(schedules.name, input.schedule))).limit(1);
  if (!row) throw new EntryNotFoundError(`schedule ${input.schedule}`);
  const nextAt = input.enabled ? nextTick(parseCron(row.cron, row.timezone), new Date()) : row.nextAt;
  const [updated] = await engine.db.update(schedules).set({ enabled: input.enabled, nextAt }).where(eq(schedules.id, row.id)).returning();
  await recordAudit(engine.db, { actor: input.actor, action: input.enabled ? 'schedule.enable' : 'schedule.disable', target: row.id, detail: { name: row.name } });
  const [mesh] = await engine.db.select({ name: meshes.name }).from(meshes).where(eq(meshes.id, row.meshId));
  return view(updated ?? row, mesh?.name ?? '(removed mesh)');
}

/** Removes a schedule (by id or name). @throws EntryNotFoundError. */
export async function removeSchedule(engine: Engine, input: { schedule: string; actor: AuditActor }): Promise<{ id: string }> {
  const [gone] = await engine.db.delete(schedules).where(or(eq(schedules.id, input.schedule), eq(schedules.name, input.schedule))).returning();
  if (!gone) throw new EntryNotFoundError(`schedule ${input.schedule}`);
  await recordAudit(engine.db, { actor: input.actor, action: 'schedule.remove', target: gone.id, detail: { name: gone.name } });
  return { id: gone.id };
}
