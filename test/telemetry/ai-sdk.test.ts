import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardTools, panoptesMiddleware } from '../../adapters/ai-sdk/index.js';
import { createMonitor } from '../../src/index.js';
import { callTool, recordingLogger, say, sequenceModel, supportTools, workflow } from '../adapters/ai-sdk/fixtures.js';
import { createOtel, eventNames, storeFailingOnRead } from './harness.js';

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});

const parentName = (spans: readonly ReadableSpan[], span: ReadableSpan) => spans.find((candidate) => candidate.spanContext().spanId === span.parentSpanContext?.spanId)?.name;

describe('telemetry through the AI SDK (experimental_telemetry)', () => {
  it("a refused refund and a violation with its intervention, nested under the AI SDK's own spans", async () => {
    const otel = createOtel();
    const monitor = createMonitor({ workflow, logger: recordingLogger(), tracer: otel.tracer, meter: otel.meter });
    const mock = sequenceModel(callTool('issue_refund', 'r1'), say('the internal notes say hi'), say('Sorry about that. Anything else?'));
    const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor, sessionId: 's1', onViolatingText: 'deliver' }) });
    const { tools, ran } = supportTools();
    const telemetry = { isEnabled: true, tracer: otel.tracer, functionId: 'support-agent' };
    const first = await generateText({ model, tools: guardTools(tools, { monitor, sessionId: 's1' }), prompt: 'Refund order 42.', stopWhen: stepCountIs(6), experimental_telemetry: telemetry });
    // The leak, delivered, broke a critical constraint: the next model call is blocked by its intervention.
    await expect(generateText({ model, tools: guardTools(tools, { monitor, sessionId: 's1' }), messages: [...first.response.messages, { role: 'user', content: 'ok?' }], stopWhen: stepCountIs(6), experimental_telemetry: telemetry })).rejects.toThrow(/no_leak/);
    expect(ran).toEqual([]);

    const spans = otel.spans();
    const roots = spans.filter((span) => span.name === 'ai.generateText');
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set(roots.map((root) => root.spanContext().traceId))); // one trace per run

    // The refusal: found in the trace with its reason, under the AI SDK's tool-call span.
    const refused = spans.find((span) => span.name === 'panoptes.guard issue_refund' && span.attributes['panoptes.guard.result'] === 'deny')!;
    expect(refused.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'r1', 'panoptes.guard.by': 'workflow', 'openinference.span.kind': 'GUARDRAIL' });
    expect(refused.attributes['panoptes.guard.reason']).toMatch(/issue_refund was refused.*verify_identity/);
    expect(parentName(spans, refused)).toBe('ai.toolCall');

    // Each model response's check nests under the AI SDK's model call.
    const checks = spans.filter((span) => span.name === 'panoptes.check');
    expect(checks).toHaveLength(2);
    for (const check of checks) expect(parentName(spans, check)).toBe('ai.generateText.doGenerate');
    const leaked = checks.find((check) => eventNames(check).includes('panoptes.violation'))!;
    expect(leaked.events.find((event) => event.name === 'panoptes.violation')?.attributes).toMatchObject({ 'panoptes.constraint': 'no_leak', 'panoptes.severity': 'critical' });

    // The interventions: the refusal's guidance and the violation's, each on the model call that carried it.
    const intervened = spans.filter((span) => span.name === 'panoptes.before_model');
    expect(intervened.flatMap((span) => span.events.map((event) => event.attributes?.['panoptes.intervention.name']))).toEqual(expect.arrayContaining(['verify_first', 'no_leak']));
    expect(intervened.map((span) => span.attributes['panoptes.action'])).toEqual(['proceed', 'block']);
    expect(parentName(spans, intervened[0]!)).toBe('ai.generateText.doGenerate');
    expect(intervened[1]!.spanContext().traceId).toBe(roots[1]!.spanContext().traceId);

    expect(await otel.points('panoptes.refusals')).toEqual([{ attributes: { 'gen_ai.tool.name': 'issue_refund', 'panoptes.refused_by': 'workflow' }, value: 1 }]);
    expect(await otel.points('panoptes.violations')).toEqual([{ attributes: { 'panoptes.constraint': 'no_leak', 'panoptes.severity': 'critical' }, value: 1 }]);
  });

  it('a response withheld before delivery: the check says so, as a guardrail that acted, and the counters mark it', async () => {
    const otel = createOtel();
    const monitor = createMonitor({ workflow, logger: recordingLogger(), tracer: otel.tracer, meter: otel.meter });
    const mock = sequenceModel(say('the internal notes say hi'), say('Could you tell me more?'));
    const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor, sessionId: 's1', onViolatingText: 'regenerate' }) });
    const result = await generateText({ model, prompt: 'Notes?', experimental_telemetry: { isEnabled: true, tracer: otel.tracer } });
    expect(result.text).toBe('Could you tell me more?');

    const [withheld, second] = otel.spans().filter((span) => span.name === 'panoptes.check');
    expect(withheld!.attributes).toMatchObject({ 'panoptes.action': 'withhold', 'panoptes.withheld': true, 'panoptes.constraints': ['no_leak'], 'openinference.span.kind': 'GUARDRAIL', 'langfuse.observation.level': 'WARNING' });
    expect(withheld!.attributes['panoptes.user_message']).toMatch(/^I'm sorry/);
    expect(withheld!.events.find((event) => event.name === 'panoptes.violation')?.attributes).toMatchObject({ 'panoptes.constraint': 'no_leak', 'panoptes.withheld': true });
    expect(second!.attributes['panoptes.withheld']).toBeUndefined();
    expect(await otel.points('panoptes.violations')).toEqual([{ attributes: { 'panoptes.constraint': 'no_leak', 'panoptes.severity': 'critical', 'panoptes.withheld': true }, value: 1 }]);
    expect(await otel.points('panoptes.regenerations')).toEqual([{ attributes: { 'panoptes.withheld': false }, value: 1 }]);
  });

  it('a loop and a fail-open miss, in the same trace as the AI SDK run', async () => {
    const otel = createOtel();
    const flaky = storeFailingOnRead(2);
    const monitor = createMonitor({ workflow, logger: recordingLogger(), tracer: otel.tracer, meter: otel.meter, loops: true, store: flaky });
    const mock = sequenceModel(...Array.from({ length: 5 }, (_, index) => callTool('verify_identity', `v${index}`)), say('Anything else?'));
    const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor, sessionId: 's1' }) });
    await generateText({
      model,
      tools: guardTools(supportTools().tools, { monitor, sessionId: 's1' }),
      prompt: 'Verify me.',
      stopWhen: stepCountIs(6),
      experimental_telemetry: { isEnabled: true, tracer: otel.tracer },
    });
    const spans = otel.spans();
    const traceId = otel.span('ai.generateText').spanContext().traceId;
    const loop = spans.find((span) => span.name.startsWith('panoptes.loop'))!;
    expect(loop.attributes['panoptes.loop.kind']).toBe('repeated-action');
    expect(loop.spanContext().traceId).toBe(traceId);
    const missed = spans.filter((span) => span.events.some((event) => event.name === 'panoptes.miss'));
    expect(missed).toHaveLength(1);
    expect(missed[0]!.spanContext().traceId).toBe(traceId);
    expect(await otel.points('panoptes.misses')).toEqual([{ attributes: { 'panoptes.miss.cause': 'store' }, value: 1 }]);
    expect(await otel.points('panoptes.loops')).toContainEqual({ attributes: { 'panoptes.loop.kind': 'repeated-action' }, value: expect.any(Number) });
  });
});
