import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Engine } from './engine';
import type * as HeartbeatsModule from './heartbeats';
import type { LocalBus } from './local-bus';
import type * as MetricsModule from './metrics';
import type * as SingletonModule from './process-singleton';
import type * as DrainModule from '../runtime/drain';

/** A fresh copy of an engine module, as a second bundle of the same process would load it. */
async function freshCopy<T>(path: string): Promise<T> {
  vi.resetModules();
  return (await import(path)) as T;
}

type Singleton = typeof SingletonModule;
type Heartbeats = typeof HeartbeatsModule;
type Metrics = typeof MetricsModule;
type Drain = typeof DrainModule;

describe('processSingleton', () => {
  const keys: string[] = [];
  afterEach(() => {
    for (const k of keys.splice(0)) delete (globalThis as Record<symbol, unknown>)[Symbol.for(`trellis.${k}`)];
  });

  it('gives two separately loaded copies of a module the same value, made once', async () => {
    const a = await freshCopy<Singleton>('./process-singleton');
    const b = await freshCopy<Singleton>('./process-singleton');
    expect(a).not.toBe(b);
    const key = `test.shared.${Date.now()}`;
    keys.push(key);
    const make = vi.fn(() => new Map<string, number>());
    const fromA = a.processSingleton(key, make);
    fromA.set('x', 1);
    const fromB = b.processSingleton(key, make);
    expect(fromB).toBe(fromA);
    expect(fromB.get('x')).toBe(1);
    expect(make).toHaveBeenCalledTimes(1);
  });

  it('keeps nothing when make throws, so the next call makes it again', async () => {
    const { processSingleton } = await freshCopy<Singleton>('./process-singleton');
    const key = `test.throws.${Date.now()}`;
    keys.push(key);
    expect(() => processSingleton(key, () => { throw new Error('not yet'); })).toThrow('not yet');
    expect(processSingleton(key, () => 7)).toBe(7);
  });
});

describe('engine state shared across module copies', () => {
  it('a worker beating from one copy of heartbeats is seen by admission reading another', async () => {
    const worker = await freshCopy<Heartbeats>('./heartbeats');
    const admission = await freshCopy<Heartbeats>('./heartbeats');
    expect(worker).not.toBe(admission);
    const bus = {} as LocalBus;
    const engine = { localBus: bus, config: { prefix: 'copies' } } as unknown as Engine;
    const beat = worker.startHeartbeat(engine, 'default', 4);
    expect(await admission.liveWorkers(engine, 'default')).toEqual({ workers: 1, slots: 4 });
    await beat.stop();
    expect(await admission.liveWorkers(engine, 'default')).toEqual({ workers: 0, slots: 0 });
  });

  it('messages counted by one copy of metrics are rendered by another, with the gauges it set the source of', async () => {
    const worker = await freshCopy<Metrics>('./metrics');
    const route = await freshCopy<Metrics>('./metrics');
    expect(worker).not.toBe(route);
    const before = await route.messagesTotal.get();
    const doneBefore = before.values.find((v) => v.labels.state === 'done')?.value ?? 0;
    worker.countMessages('done', 3);
    worker.useGaugeSource({ pools: () => Promise.resolve([{ pool: 'default', depth: 2, oldestAgeSeconds: 1 }]), runs: () => Promise.resolve([]) });
    try {
      const { body } = await route.renderMetrics();
      expect(body).toContain(`trellis_messages_total{state="done"} ${doneBefore + 3}`);
      expect(body).toContain('trellis_queue_depth{pool="default"} 2');
    } finally {
      worker.useGaugeSource(undefined);
    }
  });

  it('a drain marked by one copy is reported by another', async () => {
    const signal = await freshCopy<Drain>('../runtime/drain');
    const health = await freshCopy<Drain>('../runtime/drain');
    try {
      signal.markDraining('SIGTERM');
      expect(health.isDraining()).toBe('SIGTERM');
    } finally {
      health.resetDraining();
    }
  });
});
