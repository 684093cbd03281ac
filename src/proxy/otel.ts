/**
 * OpenTelemetry export for `panoptes serve`: traces and metrics over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `telemetry.endpoint`) is set. The SDK packages are loaded only then, so a proxy without export needs none of them.
 * @module
 */
import { context, propagation, type Meter, type Tracer } from '@opentelemetry/api';
import { MissingDependencyError } from '../embed/errors.js';
import { importOptional } from '../embed/optional-import.js';
import { PanoptesError } from '../errors/index.js';
import { INSTRUMENTATION_SCOPE } from '../telemetry/index.js';

/** `telemetry:` of the configuration. */
export interface TelemetrySettings {
  /** OTLP/HTTP base endpoint (`http://collector:4318`); `/v1/traces` and `/v1/metrics` are appended. @default OTEL_EXPORTER_OTLP_ENDPOINT */
  endpoint?: string;
  /** `service.name` of the exported data. @default OTEL_SERVICE_NAME, else 'panoptes-proxy' */
  serviceName?: string;
  /** Export traces. @default true (false with OTEL_TRACES_EXPORTER=none) */
  traces?: boolean;
  /** Export metrics. @default true (false with OTEL_METRICS_EXPORTER=none) */
  metrics?: boolean;
  /** How often metrics are exported, in milliseconds. @default 60000 */
  metricIntervalMs?: number;
}

/** The tracer and meter the proxy and its monitor record to, and `shutdown` to flush what is left at exit. */
export interface ProxyTelemetry {
  tracer?: Tracer;
  meter?: Meter;
  shutdown(): Promise<void>;
}

/** Exporters that replace the OTLP ones (tests: the SDK's in-memory exporters). */
export interface TelemetryExporters {
  spanExporter?: unknown;
  metricExporter?: unknown;
}

/** Whether export is asked for: an endpoint in the configuration or the environment, and OTEL_SDK_DISABLED not true. */
export function telemetryWanted(settings: TelemetrySettings | undefined, env: Record<string, string | undefined> = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return Boolean(settings?.endpoint ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
}

/* eslint-disable @typescript-eslint/no-explicit-any -- the SDK is loaded by name, untyped: its packages are optional */
type Module = any;

/**
 * Starts the SDK: a tracer provider with a batch processor and the OTLP trace exporter, a meter provider with a
 * periodic reader and the OTLP metric exporter, the async context manager (so the monitor's spans nest under the
 * request's across awaits) and the W3C trace-context propagator (so a client's `traceparent` is followed). Returns
 * undefined when export is not asked for.
 * @throws {PanoptesError} `MISSING_DEPENDENCY`, naming every package to install, when export is asked for and one is missing.
 */
export async function startTelemetry(settings: TelemetrySettings = {}, { env = process.env, exporters = {}, importer }: { env?: Record<string, string | undefined>; exporters?: TelemetryExporters; importer?: (specifier: string) => Promise<unknown> } = {}): Promise<ProxyTelemetry | undefined> {
  const injected = exporters.spanExporter !== undefined || exporters.metricExporter !== undefined;
  if (!injected && !telemetryWanted(settings, env)) return undefined;
  const traces = settings.traces ?? env.OTEL_TRACES_EXPORTER?.trim() !== 'none';
  const metrics = settings.metrics ?? env.OTEL_METRICS_EXPORTER?.trim() !== 'none';
  const wanted: Record<string, boolean> = {
    '@opentelemetry/resources': true,
    '@opentelemetry/core': traces,
    '@opentelemetry/context-async-hooks': traces,
    '@opentelemetry/sdk-trace-base': traces,
    '@opentelemetry/exporter-trace-otlp-http': traces && exporters.spanExporter === undefined,
    '@opentelemetry/sdk-metrics': metrics,
    '@opentelemetry/exporter-metrics-otlp-http': metrics && exporters.metricExporter === undefined,
  };
  const modules: Record<string, Module> = {};
  const missing: string[] = [];
  for (const [name, needed] of Object.entries(wanted)) {
    if (!needed) continue;
    try {
      modules[name] = await importOptional(name, 'OpenTelemetry export', importer);
    } catch (error) {
      if (!MissingDependencyError.isInstance(error)) throw error;
      missing.push(name);
    }
  }
  if (missing.length > 0) {
    throw new PanoptesError(
      'MISSING_DEPENDENCY',
      `OpenTelemetry export (asked for by ${settings.endpoint ? 'telemetry.endpoint' : 'OTEL_EXPORTER_OTLP_ENDPOINT'}) needs ${missing.length === 1 ? 'a package that is' : 'packages that are'} not installed: npm install ${missing.join(' ')} (next to panoptes). ` +
        `Or turn a signal off: telemetry.metrics: false (OTEL_METRICS_EXPORTER=none), telemetry.traces: false (OTEL_TRACES_EXPORTER=none), or OTEL_SDK_DISABLED=true for no export.`,
    );
  }

  const resource = modules['@opentelemetry/resources'].resourceFromAttributes({ 'service.name': settings.serviceName ?? env.OTEL_SERVICE_NAME ?? 'panoptes-proxy' });
  const signalUrl = (signal: 'traces' | 'metrics') => (settings.endpoint ? { url: `${settings.endpoint.replace(/\/$/, '')}/v1/${signal}` } : {});
  const shutdowns: Array<() => Promise<void>> = [];
  const telemetry: ProxyTelemetry = {
    async shutdown() {
      await Promise.allSettled(shutdowns.map((shutdown) => shutdown()));
    },
  };
  if (traces) {
    const { BasicTracerProvider, BatchSpanProcessor } = modules['@opentelemetry/sdk-trace-base'];
    const exporter = exporters.spanExporter ?? new modules['@opentelemetry/exporter-trace-otlp-http'].OTLPTraceExporter(signalUrl('traces'));
    const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
    // Global, as the context API is: the monitor's spans find the request span through it. One already set stays.
    context.setGlobalContextManager(new modules['@opentelemetry/context-async-hooks'].AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new modules['@opentelemetry/core'].W3CTraceContextPropagator());
    telemetry.tracer = provider.getTracer(INSTRUMENTATION_SCOPE);
    shutdowns.push(() => provider.shutdown());
  }
  if (metrics) {
    const { MeterProvider, PeriodicExportingMetricReader } = modules['@opentelemetry/sdk-metrics'];
    const exporter = exporters.metricExporter ?? new modules['@opentelemetry/exporter-metrics-otlp-http'].OTLPMetricExporter(signalUrl('metrics'));
    const interval = settings.metricIntervalMs ?? 60_000;
    const provider = new MeterProvider({ resource, readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: interval, exportTimeoutMillis: Math.min(interval, 30_000) })] });
    telemetry.meter = provider.getMeter(INSTRUMENTATION_SCOPE);
    shutdowns.push(() => provider.shutdown());
  }
  return telemetry;
}
