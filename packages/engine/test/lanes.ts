/**
 * Fixtures of the priority-lane tests (runs/urgent.integration.test.ts on BullMQ,
 * runtime/local-bus.integration.test.ts on the in-process bus): a mesh that turns each word into
 * one heavy agent message on pool `work`, and an agent that records when each word started.
 */
import type { AgentRunner } from '../src/kernel/engine';

/** A split into one heavy agent message per word, on pool `work`. */
export const perWordMesh = (name: string) => ({
  format: 'trellis.mesh/v1',
  name,
  members: [
    { id: 'split', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'word', field: 'text' }] },
    { id: 'slow', kind: 'agent', model: 'demo', pool: 'work' },
  ],
  channels: [{ from: 'split', to: 'slow' }],
});

/** `n` words `<tag>0 <tag>1 …`, one text. */
export const words = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');

/** An agent that takes `ms` per message and records, in start order, each word, its tag (first letter) and when it started (ms since the epoch). */
export function timedAgent(ms: number) {
  const starts: { tag: string; word: string; at: number }[] = [];
  const runAgent: AgentRunner = async (_member, payload) => {
    const text = (payload as { text?: unknown }).text;
    const word = typeof text === 'string' ? text : '';
    starts.push({ tag: word.slice(0, 1), word, at: Date.now() });
    await new Promise((r) => setTimeout(r, ms));
    return { word };
  };
  return { starts, runAgent };
}
