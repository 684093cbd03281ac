/**
 * OpenTelemetry in the proxy, with the real SDK: one server span per request, parent of the monitor's check and guard
 * spans, following a client's traceparent; `panoptes serve` exporting through the SDK (in-memory exporters, and the
 * OTLP/HTTP trace exporter to a collector on loopback).
 */
import { createServer, type IncomingMessage } from 'node:http';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AggregationTemporality, InMemoryMetricExporter } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadServeConfig } from '../../src/proxy/config.js';
import { startTelemetry, telemetryWanted } from '../../src/proxy/otel.js';
import { startServe } from '../../src/proxy/serve.js';
import { createOtel, descendsFrom } from '../telemetry/harness.js';
import { hastyAgent, startFakeUpstream } from './fake-upstream.js';
import { OPENING, quietLogger, recordingClient, startProxy, SUPPORT_WORKFLOW, TOOLS } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  // The context manager and the propagator are global: the next test starts without them.
  context.disable();
  propagation.disable();
});

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN_ID = 'b7ad6b7169203331';

describe('a request span per request', () => {
  it("is the parent of the monitor's check and guard spans, carries route, model, session, outcome and workflow, and follows the client's traceparent", async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const otel = createOtel();
    const running = await startProxy(hastyAgent, { monitor: { tracer: otel.tracer, meter: otel.meter }, proxy: { tracer: otel.tracer, meter: otel.meter } });
    cleanups.push(() => running.close());
    await running.client.chat.completions.create({ model: 'fake-model', messages: OPENING, tools: TOOLS }, { headers: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN_ID}-01` } });

    const request = await vi.waitFor(() => otel.span('POST /v1/chat/completions'), { timeout: 5000 });
    expect(request.kind).toBe(SpanKind.SERVER);
    expect(request.attributes).toEqual({
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'panoptes.outcome': 'refused',
      'gen_ai.request.model': 'fake-model',
      'panoptes.workflow': 'customer-support',
      'gen_ai.conversation.id': running.sessionIds[0],
      'session.id': running.sessionIds[0],
    });
    expect(request.spanContext().traceId).toBe(TRACE_ID);
    expect(request.parentSpanContext?.spanId).toBe(CLIENT_SPAN_ID);
    const spans = otel.spans();
    const guard = otel.span('panoptes.guard issue_refund');
    const check = otel.span('panoptes.check');
    expect(guard.attributes['panoptes.guard.result']).toBe('deny');
    for (const child of [guard, check]) {
      expect(child.spanContext().traceId).toBe(TRACE_ID);
      expect(descendsFrom(spans, child, request)).toBe(true);
    }
    expect(await otel.points('http.server.request.duration')).toEqual([
      { attributes: { 'http.route': '/v1/chat/completions', 'http.request.method': 'POST', 'http.response.status_code': 200, 'panoptes.outcome': 'refused' }, value: 1 },
    ]);
  });

  it('is not made for probes and scrapes; requests without a traceparent start their own trace', async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const otel = createOtel();
    const running = await startProxy(hastyAgent, { monitor: { tracer: otel.tracer }, proxy: { tracer: otel.tracer } });
    cleanups.push(() => running.close());
    for (const path of ['/livez', '/readyz', '/healthz', '/metrics']) expect((await fetch(`${running.url}${path}`)).status).toBe(200);
    await running.client.chat.completions.create({ model: 'fake-model', messages: OPENING, tools: TOOLS });
    const request = await vi.waitFor(() => otel.span('POST /v1/chat/completions'), { timeout: 5000 });
    expect(request.parentSpanContext).toBeUndefined();
    expect(otel.spans().filter((span) => span.kind === SpanKind.SERVER).map((span) => span.name)).toEqual(['POST /v1/chat/completions']);
  });
});

/** A span exporter that keeps its spans past shutdown (the in-memory one clears them), so they can be read after close. */
class KeptSpans extends InMemorySpanExporter {
  override shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

async function serveConfig(upstream: string, env: Record<string, string> = {}) {
  return loadServeConfig({ env, flags: { upstream, workflow: SUPPORT_WORKFLOW, port: '0' } });
}

describe('panoptes serve with OpenTelemetry export', () => {
  it('exports the request spans with the monitor spans under them, and the metrics, through the SDK', async () => {
    const upstream = await startFakeUpstream(hastyAgent);
    cleanups.push(() => upstream.close());
    const spanExporter = new KeptSpans();
    const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const running = await startServe(await serveConfig(upstream.url), { logger: quietLogger(), env: {}, exporters: { spanExporter, metricExporter } });
    const { client } = recordingClient(running.url);
    const stream = await client.chat.completions.create({ model: 'fake-model', messages: OPENING, tools: TOOLS, stream: true });
    for await (const _chunk of stream);
    await running.close(); // flushes both

    const spans = spanExporter.getFinishedSpans();
    const request = spans.find((span) => span.name === 'POST /v1/chat/completions');
    const guard = spans.find((span) => span.name === 'panoptes.guard issue_refund');
    expect(request?.attributes['panoptes.outcome']).toBe('refused');
    expect(request?.resource.attributes['service.name']).toBe('panoptes-proxy');
    expect(guard && request && descendsFrom(spans, guard, request)).toBe(true);
    const names = metricExporter.getMetrics().flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => metric.descriptor.name)));
    expect(names).toEqual(expect.arrayContaining(['http.server.request.duration', 'panoptes.refusals', 'panoptes.guard.duration']));
  });

  it('posts the traces and the metrics to an OTLP/HTTP collector at telemetry.endpoint', async () => {
    const bodies: Array<{ path: string; type: string; body: string }> = [];
    const collector = createServer((request: IncomingMessage, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')));
      request.on('end', () => {
        bodies.push({ path: request.url ?? '', type: String(request.headers['content-type']), body });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => collector.close(() => resolve())));
    const endpoint = `http://127.0.0.1:${(collector.address() as { port: number }).port}`;
    const upstream = await startFakeUpstream(hastyAgent);
    cleanups.push(() => upstream.close());
    const config = await serveConfig(upstream.url, { PANOPTES_TELEMETRY__ENDPOINT: endpoint, PANOPTES_TELEMETRY__SERVICE_NAME: 'proxy-under-test' });
    const running = await startServe(config, { logger: quietLogger(), env: {} });
    await recordingClient(running.url).client.chat.completions.create({ model: 'fake-model', messages: OPENING, tools: TOOLS });
    await running.close(); // flushes both signals, long before the 60 s export interval
    expect(bodies.map((body) => body.path).sort()).toEqual(['/v1/metrics', '/v1/traces']);
    const traces = bodies.find((body) => body.path === '/v1/traces')!.body;
    for (const text of ['POST /v1/chat/completions', 'panoptes.guard issue_refund', 'panoptes.check', 'proxy-under-test', 'panoptes.outcome']) expect(traces).toContain(text);
    const metrics = bodies.find((body) => body.path === '/v1/metrics')!.body;
    for (const text of ['http.server.request.duration', 'panoptes.refusals', 'proxy-under-test']) expect(metrics).toContain(text);
  });

  it('is off without an endpoint, and with OTEL_SDK_DISABLED=true', () => {
    expect(telemetryWanted(undefined, {})).toBe(false);
    expect(telemetryWanted(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(telemetryWanted({ endpoint: 'http://collector:4318' }, { OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(trace.getTracerProvider()).toBeDefined();
  });

  it('names every package to install when export is asked for and one is missing', async () => {
    const missing = (name: string) => Object.assign(new Error(`Cannot find package '${name}' imported from /app`), { code: 'ERR_MODULE_NOT_FOUND' });
    const importer = (name: string) => (name.includes('exporter') ? Promise.reject(missing(name)) : import(name));
    await expect(startTelemetry({}, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, importer })).rejects.toThrow(
      'OpenTelemetry export (asked for by OTEL_EXPORTER_OTLP_ENDPOINT) needs packages that are not installed: npm install @opentelemetry/exporter-trace-otlp-http @opentelemetry/exporter-metrics-otlp-http (next to panoptes). Or turn a signal off: telemetry.metrics: false (OTEL_METRICS_EXPORTER=none), telemetry.traces: false (OTEL_TRACES_EXPORTER=none), or OTEL_SDK_DISABLED=true for no export.',
    );
    // As installed here: the metric exporter is not, unless it was added since.
    const hasMetricExporter = await import('@opentelemetry/exporter-metrics-otlp-http' as string).then(() => true, () => false);
    const started = startTelemetry({ endpoint: 'http://127.0.0.1:1' }, { env: {} });
    if (hasMetricExporter) await (await started)!.shutdown();
    else await expect(started).rejects.toThrow('npm install @opentelemetry/exporter-metrics-otlp-http (next to panoptes)');
    const tracesOnly = await startTelemetry({ endpoint: 'http://127.0.0.1:1' }, { env: { OTEL_METRICS_EXPORTER: 'none' } });
    expect(tracesOnly?.tracer).toBeDefined();
    expect(tracesOnly?.meter).toBeUndefined();
    await tracesOnly!.shutdown();
  });
});
