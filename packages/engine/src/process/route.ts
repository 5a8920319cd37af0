/** Turning a member's outputs into child messages on its outgoing channels. */
import { channelName } from '@trellis/mesh/schema';
import { StepError } from '../kernel/errors';
import type { Item } from '../plan/frames';
import type { Plan, Route } from '../plan/plan';
import type { ChildRow, Claimed } from './types';

/** Per plan: member id → its own channels (name → receiving member), read from the mesh file itself. */
const owned = new WeakMap<Plan, Map<string, Map<string, string>>>();

function channelsOf(plan: Plan, member: string): ReadonlyMap<string, string> {
  let byMember = owned.get(plan);
  if (!byMember) {
    byMember = new Map();
    for (const ch of plan.mesh.channels) {
      let mine = byMember.get(ch.from);
      if (!mine) byMember.set(ch.from, (mine = new Map<string, string>()));
      mine.set(channelName(ch), ch.to);
    }
    owned.set(plan, byMember);
  }
  return byMember.get(member) ?? new Map();
}

/**
 * The publish boundary's ownership check: a member may only publish on channels the mesh file
 * gives it (`from` = the member), to the member that channel names. Routes are compiled from those
 * channels, so this holds by construction; the check makes it hold by enforcement too (a corrupted
 * plan cache, a future routing feature), before any row is written or any job added.
 * @throws StepError `step_code_failed`, not retryable, naming the member and the channel.
 */
export function assertOwnsRoutes(plan: Plan, member: string, routes: readonly { channel: string; to: string }[]): void {
  const mine = channelsOf(plan, member);
  for (const r of routes) {
    if (mine.get(r.channel) !== r.to) {
      throw new StepError(
        'step_code_failed',
        member,
        `member ${member} tried to publish on channel ${r.channel} to ${r.to}, which it does not own; refused before sending`,
        false,
      );
    }
  }
}

/**
 * A part that routing dropped: no condition of the member's channels held for it, or the channels it
 * took do not lead to a combine that waits for it. It is recorded on the trail as `filtered` and
 * counted as skipped at `combines` (DESIGN.md §3 "Keyed join").
 */
export interface Dropped {
  /** Position among the member's outputs (the `seq` of the trail row). */
  index: number;
  item: Item;
  /** Combines that join on the part's top frame and will not see it: each counts it as skipped. */
  combines: string[];
  /** Why, in plain words: the channels whose condition did not hold, with the conditions. */
  reason: string;
}

/** What routing one member's outputs produced. */
export interface Routed {
  children: ChildRow[];
  dropped: Dropped[];
}

/**
 * One child per output and outgoing channel whose condition holds. A void skips conditions (there
 * is nothing to test) and goes on every channel, so the combines downstream still fire once.
 * A part a condition keeps from a combine that joins on its top frame, and that reaches that
 * combine by no other channel, is returned as {@link Dropped}; so is a part no channel takes.
 * `idFor(channel, index)` gives the deterministic id.
 * @throws StepError when a route is not the member's own channel ({@link assertOwnsRoutes}).
 */
export function routeItems(plan: Plan, msg: Claimed, items: readonly Item[], idFor: (channel: string, index: number) => string): Routed {
  const routes = plan.routes.get(msg.member) ?? [];
  assertOwnsRoutes(plan, msg.member, routes);
  const children: ChildRow[] = [];
  const dropped: Dropped[] = [];
  items.forEach((item, index) => {
    const refused: Route[] = [];
    for (const r of routes) {
      if (!item.void && r.test && !r.test(item.payload)) {
        refused.push(r);
        continue;
      }
      children.push({
        id: idFor(r.channel, index),
        run_id: msg.runId,
        member: r.to,
        pool: r.pool,
        channel: r.channel,
        seq: index,
        parent_id: msg.id,
        depth: msg.depth + 1,
        frames: item.frames,
        void: item.void,
        payload: item.void ? {} : item.payload,
      });
    }
    if (refused.length === 0) return;
    const taken = routes.filter((r) => !refused.includes(r));
    const reached = new Set(taken.flatMap((r) => r.joins));
    const combines = item.frames.length === 0 ? [] : [...new Set(refused.flatMap((r) => r.joins))].filter((c) => !reached.has(c));
    if (taken.length > 0 && combines.length === 0) return;
    dropped.push({ index, item, combines, reason: dropReason(plan, msg.member, refused, taken) });
  });
  return { children, dropped };
}

function dropReason(plan: Plan, member: string, refused: readonly Route[], taken: readonly Route[]): string {
  const who = plan.members.get(member)?.label ?? member;
  const conditions = refused.map((r) => `${r.channel} (${r.when ?? ''})`).join(', ');
  const head = taken.length === 0 ? `filtered at ${who}: no channel's condition held` : `filtered at ${who} on the way to a combine`;
  const went = taken.length === 0 ? '' : `; it went on by ${taken.map((r) => r.channel).join(', ')} only`;
  return `${head}: ${conditions}${went}`;
}

/** What a leaf member produced: one payload, or an array when it produced several; undefined for none. */
export function leafOutput(items: readonly Item[]): { value: unknown } | undefined {
  const real = items.filter((i) => !i.void);
  if (real.length === 0) return undefined;
  return { value: real.length === 1 ? real[0]?.payload : real.map((i) => i.payload) };
}
