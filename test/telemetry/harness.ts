import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader, type DataPoint } from '@opentelemetry/sdk-metrics';
import type { Attributes } from '@opentelemetry/api';
import { createMemorySessionStore, type MonitorSession } from '../../src/index.js';

/** A reader that only collects when asked. */
class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** The real OpenTelemetry SDK with an in-memory span exporter and a metric reader. */
export function createOtel({ processors = [] }: { processors?: SpanProcessor[] } = {}) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [...processors, new SimpleSpanProcessor(exporter)] });
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    exporter,
    provider,
    meterProvider,
    tracer: provider.getTracer('panoptes'),
    meter: meterProvider.getMeter('panoptes'),
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    span(name: string): ReadableSpan {
      const found = exporter.getFinishedSpans().find((span) => span.name === name);
      if (!found) throw new Error(`no span ${name} among ${exporter.getFinishedSpans().map((span) => span.name).join(', ')}`);
      return found;
    },
    /** The data points of one metric: attributes and value (a histogram's count). */
    async points(name: string): Promise<Array<{ attributes: Attributes; value: number }>> {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((candidate) => candidate.descriptor.name === name);
      return (metric?.dataPoints ?? []).map((point: DataPoint<unknown>) => ({
        attributes: point.attributes,
        value: typeof point.value === 'number' ? point.value : (point.value as { count: number }).count,
      }));
    },
    /** Every string the SDK holds for export: names, attributes, events, status. */
    async everything(): Promise<string> {
      const { resourceMetrics } = await reader.collect();
      return JSON.stringify({ spans: exporter.getFinishedSpans().map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, status: span.status })), metrics: resourceMetrics.scopeMetrics });
    },
  };
}

export const eventNames = (span: ReadableSpan): string[] => span.events.map((event) => event.name);

/** Whether `span` descends from `ancestor` through the exported spans. */
export function descendsFrom(spans: readonly ReadableSpan[], span: ReadableSpan, ancestor: ReadableSpan): boolean {
  let current: ReadableSpan | undefined = span;
  while (current) {
    const parentId: string | undefined = current.parentSpanContext?.spanId;
    if (parentId === ancestor.spanContext().spanId) return true;
    current = spans.find((candidate) => candidate.spanContext().spanId === parentId);
  }
  return false;
}

/** A session store in memory whose `failingRead`-th read throws "store down": one fail-open miss, mid-run. */
export function storeFailingOnRead(failingRead: number) {
  let reads = 0;
  const store = createMemorySessionStore<MonitorSession>();
  return {
    ...store,
    get: (key: string) => {
      if (++reads === failingRead) throw new Error('store down');
      return store.get(key);
    },
  };
}
