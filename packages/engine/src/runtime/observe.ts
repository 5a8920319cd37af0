/**
 * A worker or orchestrator process's observability, started from its settings: the health server
 * (runtime/health.ts) when TRELLIS_HEALTH_PORT is set, and tracing (runtime/tracing.ts) when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set.
 */
import type { EngineEnv } from '../kernel/env';
import type { Engine } from '../kernel/engine';
import { startHealthServer, type HealthServer } from './health';
import { tracingFromEnv } from './tracing';

/** What {@link observeProcess} started; `close()` stops it (after the process's work has stopped). */
export interface Observed {
  readonly health: HealthServer | undefined;
  close(): Promise<void>;
}

/**
 * Starts the health server and tracing that `env` asks for, for `engine`; `service` names the
 * process on spans (e.g. `trellis-worker`) unless OTEL_SERVICE_NAME says otherwise.
 * @throws Error naming TRELLIS_HEALTH_PORT when its port cannot be bound.
 */
export async function observeProcess(
  engine: Engine,
  env: Pick<EngineEnv, 'healthPort' | 'healthHost' | 'metricsToken' | 'otlpEndpoint' | 'otelServiceName'>,
  service: string,
): Promise<Observed> {
  const tracing = tracingFromEnv(env, service);
  let health: HealthServer | undefined;
  try {
    health = env.healthPort === undefined ? undefined : await startHealthServer(engine, { port: env.healthPort, host: env.healthHost, metricsToken: env.metricsToken });
  } catch (err) {
    await tracing?.close();
    throw err;
  }
  if (health) engine.log.info('health server listening', { port: health.port, host: env.healthHost });
  return {
    health,
    async close() {
      await health?.close();
      await tracing?.close();
    },
  };
}
