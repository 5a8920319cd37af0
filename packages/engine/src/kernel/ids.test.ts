import { describe, expect, it } from 'vitest';
import { headMessageId, joinOutputId, messageId, uuidv7 } from './ids';

describe('ids', () => {
  it('message ids are deterministic 64-hex strings without ":" (BullMQ job ids)', () => {
    const a = messageId('run', 'parent', 'a->b', 3);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(messageId('run', 'parent', 'a->b', 3)).toBe(a);
    expect(messageId('run', 'parent', 'a->b', 4)).not.toBe(a);
    // Framing keeps different splits of the same characters apart.
    expect(messageId('ru', 'nparent', 'a->b', 3)).not.toBe(a);
    expect(headMessageId('run')).toBe(headMessageId('run'));
    expect(joinOutputId('run', 'join', 'k', 'c', 0)).not.toBe(messageId('run', 'k', 'c', 0));
  });

  it('uuidv7 sorts by creation time and has version 7', () => {
    const a = uuidv7(1_700_000_000_000);
    const b = uuidv7(1_700_000_000_001);
    expect(a < b).toBe(true);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
