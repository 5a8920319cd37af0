import { describe, expect, it } from 'vitest';
import { packFrames, parseFrames, type Frame } from './frames';

const hex = (c: string) => c.repeat(64);

describe('packed frames', () => {
  it('round-trips message-id keys, other keys and the empty stack, and is much shorter than the objects', () => {
    const frames: Frame[] = [
      { split: hex('a'), index: 12, count: 300 },
      { split: `${hex('b')}/0/1`, index: 0, count: 0 },
      { split: hex('0'), index: 19_999, count: 20_000 },
    ];
    const packed = packFrames(frames);
    expect(typeof packed).toBe('string');
    expect(parseFrames(packed)).toEqual(frames);
    expect(JSON.stringify(packed).length).toBeLessThan(JSON.stringify(frames).length / 1.5);
    expect(parseFrames(packFrames([]))).toEqual([]);
  });

  it('keeps a key with a separator as objects, and reads frames stored before packing', () => {
    const odd: Frame[] = [{ split: 'a|b;c', index: 1, count: 2 }];
    expect(packFrames(odd)).toEqual(odd);
    expect(parseFrames(packFrames(odd))).toEqual(odd);
    expect(parseFrames([{ split: 'old', index: 0, count: 1 }])).toEqual([{ split: 'old', index: 0, count: 1 }]);
    expect(parseFrames('.k|x|1')).toEqual([]);
  });
});
