/** The combine kind: its messages are counted towards their join in the commit transaction (process/join.ts). */
import type { KindHandler } from '../types';

/** Lane `join`; a combine's output is made by the join (members/combine/merge.ts), never by `execute`. */
export const combineKind: KindHandler<'combine'> = {
  lane: () => 'join',
  execute() {
    throw new Error('a combine is executed by the join, not here');
  },
};
