import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMonitor } from '../../src/index.js';
import { call, recordingLogger, say, supportWorkflow as workflow } from '../monitor/fixtures.js';

interface OtlpValue { stringValue?: string; intValue?: string | number; doubleValue?: number; arrayValue?: { values: OtlpValue[] } }
interface OtlpSpan { name: string; attributes: Array<{ key: string; value: OtlpValue }>; events?: Array<{ name: string }> }

/** A bare OTLP/HTTP receiver on loopback: it keeps the decoded JSON bodies of POST /v1/traces. */
const received: unknown[] = [];
const server = createServer((request: IncomingMessage, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    if (request.method === 'POST' && request.url === '/v1/traces' && String(request.headers['content-type']).includes('json')) received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
let endpoint = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const valueOf = (value: OtlpValue): unknown => value.stringValue ?? value.intValue ?? value.doubleValue ?? value.arrayValue?.values.map(valueOf);

describe('OTLP/HTTP end to end', () => {
  it('a refused refund arrives at an OTLP receiver with its reason, and no secret does', async () => {
    const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }))] });
    const monitor = createMonitor({ workflow, logger: recordingLogger(), tracer: provider.getTracer('panoptes') });
    await monitor.afterModel('s1', say('tell me more, my key is sk-live-abcdefghijklmnop1234567890'));
    await monitor.afterModel('s1', call('issue_refund', 'r1'));
    const decision = await monitor.beforeTool('s1', { id: 'r1', name: 'issue_refund', args: { order: 'A1', token: 'Bearer abcdefghijklmnop.qrstu' } });
    expect(decision.action).toBe('deny');
    await provider.forceFlush();
    await provider.shutdown();

    const spans = (received as Array<{ resourceSpans: Array<{ scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] }> }> }>).flatMap((body) =>
      body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => ({ scope: scope.scope.name, ...span })))),
    );
    const guard = spans.find((span) => span.name === 'panoptes.guard issue_refund');
    expect(guard?.scope).toBe('panoptes');
    const attributes = Object.fromEntries(guard!.attributes.map(({ key, value }) => [key, valueOf(value)]));
    expect(attributes).toMatchObject({ 'gen_ai.tool.name': 'issue_refund', 'gen_ai.tool.call.id': 'r1', 'panoptes.guard.result': 'deny', 'openinference.span.kind': 'GUARDRAIL', 'panoptes.constraints': ['verify_first'] });
    expect(attributes['panoptes.guard.reason']).toMatch(/issue_refund was refused.*verify_identity/);
    expect(guard!.events?.map((event) => event.name)).toContain('panoptes.refusal');
    expect(spans.filter((span) => span.name === 'panoptes.check')).toHaveLength(2);
    const wire = JSON.stringify(received);
    expect(wire).not.toContain('sk-live-abcdefghijklmnop1234567890');
    expect(wire).not.toContain('abcdefghijklmnop.qrstu');
  });
});
