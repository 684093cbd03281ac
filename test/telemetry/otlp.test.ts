import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMonitor } from '../../src/index.js';
import { call, recordingLogger, say, supportWorkflow as workflow } from '../monitor/fixtures.js';
import { startOtlpReceiver } from './otlp-receiver.js';

interface OtlpValue { stringValue?: string; intValue?: string | number; doubleValue?: number; arrayValue?: { values: OtlpValue[] } }
interface OtlpSpan { name: string; attributes: Array<{ key: string; value: OtlpValue }>; events?: Array<{ name: string }> }

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let endpoint = '';
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  endpoint = receiver.endpoint;
});
afterAll(() => receiver.close());

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

    const spans = (receiver.exports.map((exported) => exported.body) as Array<{ resourceSpans: Array<{ scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] }> }> }>).flatMap((body) =>
      body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => ({ scope: scope.scope.name, ...span })))),
    );
    const guard = spans.find((span) => span.name === 'panoptes.guard issue_refund');
    expect(guard?.scope).toBe('panoptes');
    const attributes = Object.fromEntries(guard!.attributes.map(({ key, value }) => [key, valueOf(value)]));
    expect(attributes).toMatchObject({ 'gen_ai.tool.name': 'issue_refund', 'gen_ai.tool.call.id': 'r1', 'panoptes.guard.result': 'deny', 'openinference.span.kind': 'GUARDRAIL', 'panoptes.constraints': ['verify_first'] });
    expect(attributes['panoptes.guard.reason']).toMatch(/issue_refund was refused.*verify_identity/);
    expect(guard!.events?.map((event) => event.name)).toContain('panoptes.refusal');
    expect(spans.filter((span) => span.name === 'panoptes.check')).toHaveLength(2);
    const wire = JSON.stringify(receiver.exports.map((exported) => exported.body));
    expect(wire).not.toContain('sk-live-abcdefghijklmnop1234567890');
    expect(wire).not.toContain('abcdefghijklmnop.qrstu');
  });
});
