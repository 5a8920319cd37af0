/** Turning a member's outputs into child messages on its outgoing channels. */
import type { Item } from '../exec/frames';
import type { Plan } from '../exec/plan';
import type { ChildRow, Claimed } from './types';

/**
 * One child per output and outgoing channel whose condition holds. A void skips conditions (there
 * is nothing to test) and goes on every channel, so the combines downstream still fire once.
 * `idFor(channel, index)` gives the deterministic id.
 */
export function routeItems(plan: Plan, msg: Claimed, items: readonly Item[], idFor: (channel: string, index: number) => string): ChildRow[] {
  const routes = plan.routes.get(msg.member) ?? [];
  const children: ChildRow[] = [];
  items.forEach((item, index) => {
    for (const r of routes) {
      if (!item.void && r.test && !r.test(item.payload)) continue;
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
  });
  return children;
}

/** What a leaf member produced: one payload, or an array when it produced several; undefined for none. */
export function leafOutput(items: readonly Item[]): { value: unknown } | undefined {
  const real = items.filter((i) => !i.void);
  if (real.length === 0) return undefined;
  return { value: real.length === 1 ? real[0]?.payload : real.map((i) => i.payload) };
}
