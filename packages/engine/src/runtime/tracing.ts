/**
 * Starts OpenTelemetry tracing for this process when OTEL_EXPORTER_OTLP_ENDPOINT is set: the Node
 * SDK (`@opentelemetry/sdk-node`) with one batch span processor sending to `<endpoint>/v1/traces`
 * over OTLP/HTTP (JSON). Only traces: metrics are Prometheus (kernel/metrics.ts) and logs go to
 * stderr (kernel/log.ts), so the SDK's metric readers and log processors are left empty. The spans
 * themselves are written by kernel/tracing.ts; the id generator gives a run's root span the ids
 * derived from its run id (kernel/tracing.ts `plannedSpanIds`) and random ids to every other span.
 */
import { trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, RandomIdGenerator, type IdGenerator } from '@opentelemetry/sdk-trace-base';
import { plannedSpanIds, setTracing } from '../kernel/tracing';

const random = new RandomIdGenerator();
/** Random ids, except for the span kernel/tracing.ts is starting with ids of its own. */
const idGenerator: IdGenerator = {
  generateTraceId: () => plannedSpanIds()?.traceId ?? random.generateTraceId(),
  generateSpanId: () => plannedSpanIds()?.spanId ?? random.generateSpanId(),
};

/** Started tracing. */
export interface Tracing {
  /** Sends the spans still buffered now. */
  flush(): Promise<void>;
  /** Sends what is buffered and stops recording spans. */
  close(): Promise<void>;
}

/** Options for {@link startTracing}. */
export interface TracingOptions {
  /** OTLP/HTTP base URL, e.g. `http://otel-collector:4318` (OTEL_EXPORTER_OTLP_ENDPOINT). */
  endpoint: string;
  /** `service.name` of the spans (OTEL_SERVICE_NAME, else e.g. `trellis-worker`). */
  serviceName: string;
  /** Longest wait before buffered spans are sent, ms (default 2 000). */
  scheduledDelayMillis?: number;
}

/**
 * Registers the SDK globally and turns step and run spans on. Call once per process; `close()` before
 * starting it again (the OpenTelemetry API holds one global tracer provider).
 */
export function startTracing(options: TracingOptions): Tracing {
  const url = `${options.endpoint.replace(/\/+$/, '')}/v1/traces`;
  const processor = new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: options.scheduledDelayMillis ?? 2_000 });
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    idGenerator,
    spanProcessors: [processor],
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
    // Host and process attributes only; no cloud detectors probing metadata endpoints at start.
    autoDetectResources: false,
  });
  sdk.start();
  setTracing(true);
  return {
    flush: () => processor.forceFlush(),
    async close() {
      setTracing(false);
      await sdk.shutdown();
      trace.disable();
    },
  };
}

/** {@link startTracing} when `endpoint` is set (OTEL_EXPORTER_OTLP_ENDPOINT), else undefined. */
export function tracingFromEnv(env: { otlpEndpoint: string | undefined; otelServiceName: string | undefined }, serviceName: string): Tracing | undefined {
  if (!env.otlpEndpoint) return undefined;
  return startTracing({ endpoint: env.otlpEndpoint, serviceName: env.otelServiceName ?? serviceName });
}
