import { describe, expect, it } from 'vitest';
import { loadEngineEnv } from './env';

describe('loadEngineEnv queue prefix', () => {
  it('gives each embedded data directory its own prefix, so two checkouts on one Redis never share jobs', () => {
    const a = loadEngineEnv({ TRELLIS_DATA_DIR: '/tmp/one/.data/pglite' }).queuePrefix;
    const b = loadEngineEnv({ TRELLIS_DATA_DIR: '/tmp/two/.data/pglite' }).queuePrefix;
    expect(a).toMatch(/^\{trellis-[0-9a-f]{8}\}$/);
    expect(b).toMatch(/^\{trellis-[0-9a-f]{8}\}$/);
    expect(a).not.toBe(b);
    expect(loadEngineEnv({ TRELLIS_DATA_DIR: '/tmp/one/.data/pglite' }).queuePrefix).toBe(a);
  });

  it('shares one prefix across the processes of a Postgres installation, and honours an explicit one', () => {
    expect(loadEngineEnv({ DATABASE_URL: 'postgres://x@h/db' }).queuePrefix).toBe('{trellis}');
    expect(loadEngineEnv({ TRELLIS_QUEUE_PREFIX: 'mine' }).queuePrefix).toBe('mine');
    expect(loadEngineEnv({ TRELLIS_QUEUE_PREFIX: '{mine}' }).queuePrefix).toBe('{mine}');
  });

  it('names the variable when a value is malformed', () => {
    for (const bad of ['a:b', '{a', 'a}', '{a}b', '{{a}}', '{}']) expect(() => loadEngineEnv({ TRELLIS_QUEUE_PREFIX: bad })).toThrow(/TRELLIS_QUEUE_PREFIX/);
  });
});

describe('loadEngineEnv bus', () => {
  it('reads the observability settings: no health server, text logs and no tracing unless set', () => {
    expect(loadEngineEnv({})).toMatchObject({ healthPort: undefined, healthHost: '0.0.0.0', metricsToken: undefined, logFormat: 'text', otlpEndpoint: undefined });
    expect(
      loadEngineEnv({ TRELLIS_HEALTH_PORT: '9464', TRELLIS_METRICS_TOKEN: 't0k', TRELLIS_LOG_FORMAT: 'json', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318' }),
    ).toMatchObject({ healthPort: 9464, metricsToken: 't0k', logFormat: 'json', otlpEndpoint: 'http://otel:4318' });
    expect(() => loadEngineEnv({ TRELLIS_HEALTH_PORT: '70000' })).toThrow(/TRELLIS_HEALTH_PORT/);
    expect(() => loadEngineEnv({ TRELLIS_LOG_FORMAT: 'xml' })).toThrow(/TRELLIS_LOG_FORMAT/);
    expect(() => loadEngineEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'otel:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });

  it('runs the in-process bus on the embedded database without REDIS_URL, BullMQ otherwise', () => {
    expect(loadEngineEnv({}).bus).toBe('local');
    expect(loadEngineEnv({ REDIS_URL: ' ' }).bus).toBe('local');
    expect(loadEngineEnv({ REDIS_URL: 'redis://h:6379' })).toMatchObject({ bus: 'redis', redisUrl: 'redis://h:6379' });
    expect(loadEngineEnv({ DATABASE_URL: 'postgres://x@h/db' })).toMatchObject({ bus: 'redis', redisUrl: 'redis://127.0.0.1:6379' });
  });
});

describe('loadEngineEnv drain deadline', () => {
  it('waits 25 s by default, takes a positive whole number of ms, and names the variable otherwise', () => {
    expect(loadEngineEnv({}).drainMs).toBe(25_000);
    expect(loadEngineEnv({ TRELLIS_DRAIN_MS: '1500' }).drainMs).toBe(1500);
    for (const bad of ['0', '-5', '1.5', 'soon']) expect(() => loadEngineEnv({ TRELLIS_DRAIN_MS: bad })).toThrow(/TRELLIS_DRAIN_MS/);
  });
});

describe('loadEngineEnv leader lease', () => {
  it('defaults to 15 000 ms and takes whole milliseconds of at least 100', () => {
    expect(loadEngineEnv({}).leaderLeaseMs).toBe(15_000);
    expect(loadEngineEnv({ TRELLIS_LEADER_LEASE_MS: '2000' }).leaderLeaseMs).toBe(2000);
    for (const bad of ['0', '99', '1.5', 'soon']) expect(() => loadEngineEnv({ TRELLIS_LEADER_LEASE_MS: bad })).toThrow(/TRELLIS_LEADER_LEASE_MS/);
  });
});

describe('loadEngineEnv concurrency limits', () => {
  it('has no limit by default, takes whole numbers of runs, and names the variable otherwise', () => {
    expect(loadEngineEnv({})).toMatchObject({ maxRunsPerUser: 0, maxRunsPerMesh: 0 });
    expect(loadEngineEnv({ TRELLIS_MAX_RUNS_PER_USER: '3', TRELLIS_MAX_RUNS_PER_MESH: '10' })).toMatchObject({ maxRunsPerUser: 3, maxRunsPerMesh: 10 });
    for (const name of ['TRELLIS_MAX_RUNS_PER_USER', 'TRELLIS_MAX_RUNS_PER_MESH']) {
      for (const bad of ['-1', '1.5', 'many']) expect(() => loadEngineEnv({ [name]: bad })).toThrow(new RegExp(`^invalid setting ${name}: `));
    }
    expect(() => loadEngineEnv({ TRELLIS_MAX_RUNS_PER_USER: '-1' })).toThrow('invalid setting TRELLIS_MAX_RUNS_PER_USER: a whole number of runs (0 = no limit)');
  });
});
