/**
 * The inline lanes of one engine's workers in this process, one per pool served. A commit on one
 * pool's worker keeps the light children for its own pool in its own lane (process/inline-lane.ts)
 * and hands the light children for another pool this process also serves to that pool's lane, so
 * a heavy member's commit (an agent on `agents`) does not turn every part for the combine after it
 * (on `default`) into a BullMQ job that this same process would then take back from Redis.
 *
 * Nothing about a child's claim changes: it is inserted leased to the lane that takes it, and that
 * lane processes it in its own worker's batching, renews it and hands it back on failure; when the
 * process dies the lease lapses and the relay adds the job. A pool this process does not serve is
 * served where it is (its children are jobs, as before). A lane that is closing is left out: a row
 * it marked but can no longer take is returned as a job (completing a light row ignores its lease).
 */
import type { Engine } from '../kernel/engine';
import type { Plan } from '../plan/plan';
import type { InlineLane } from './inline-lane';
import type { ChildRow } from './types';

/** What a commit needs of the inline lanes: marking children before insert, taking them after. */
export type InlineTaker = Pick<InlineLane, 'mark' | 'take'>;

/** Each engine's open lanes in this process, with the pool each serves, in the order they opened. */
const open = new WeakMap<Engine, Map<InlineLane, string>>();

/**
 * Registers `lane` (serving `pool`) as one of `engine`'s lanes in this process and returns what its
 * worker's commits use: its own lane first, then one lane for each other pool served here.
 * `close()` of the result unregisters it (call it before closing the lane).
 */
export function joinLanes(engine: Engine, pool: string, lane: InlineLane): InlineTaker & { close(): void } {
  const lanes = open.get(engine) ?? new Map<InlineLane, string>();
  open.set(engine, lanes);
  lanes.set(lane, pool);
  /** The first open lane of every pool but `pool` (two workers of one pool share no children). */
  const others = (): InlineLane[] => {
    const byPool = new Map<string, InlineLane>();
    for (const [l, p] of lanes) if (p !== pool && !byPool.has(p)) byPool.set(p, l);
    return [...byPool.values()];
  };
  return {
    mark(children: readonly ChildRow[], plans: ReadonlyMap<string, Plan>): void {
      lane.mark(children, plans);
      // Each lane marks only children for its own pool, so the lists never overlap.
      for (const other of others()) other.mark(children, plans);
    },
    take(inserted: readonly ChildRow[]): ChildRow[] {
      const siblings = others().filter((l) => l.owner !== lane.owner);
      if (siblings.length === 0) return lane.take(inserted);
      const byOwner = new Map(siblings.map((l) => [l.owner, [] as ChildRow[]]));
      const rest: ChildRow[] = [];
      for (const c of inserted) {
        const list = c.lease_owner === undefined ? undefined : byOwner.get(c.lease_owner);
        if (list) list.push(c);
        else rest.push(c);
      }
      for (const other of siblings) {
        const handed = other.take(byOwner.get(other.owner) ?? []);
        for (const c of handed) rest.push(c);
      }
      // Last, so the own lane's counters see the children that really become jobs.
      return lane.take(rest);
    },
    close(): void {
      lanes.delete(lane);
    },
  };
}
