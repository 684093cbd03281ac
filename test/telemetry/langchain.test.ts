import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { createAgent } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { panoptesMiddleware } from '../../adapters/langchain/index.js';
import { callTool, supportMonitor, supportTools } from '../adapters/langchain/helpers.js';
import { createOtel, descendsFrom, storeFailingOnRead } from './harness.js';

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});

const SYSTEM = 'You are a support agent.';
const ask = (text: string) => ({ messages: [new HumanMessage(text)] });
const thread = (id: string) => ({ configurable: { thread_id: id }, recursionLimit: 100 });


describe("telemetry through LangChain's createAgent", () => {
  it("a refused refund and its guidance, under the application's span around the agent's run", async () => {
    const otel = createOtel();
    const { monitor } = supportMonitor({ tracer: otel.tracer, meter: otel.meter });
    const { tools } = supportTools();
    const model = fakeModel()
      .respond(callTool('issue_refund', { order_id: 'A1' }, 'r0'))
      .respond(callTool('verify_identity', { customer_id: '42' }, 'v1'))
      .respond(callTool('issue_refund', { order_id: 'A1' }, 'r1'))
      .respond(new AIMessage('Your refund is on its way. Is there anything else I can help with?'));
    const agent = createAgent({ model, tools, systemPrompt: SYSTEM, middleware: [panoptesMiddleware({ monitor })] });
    await otel.tracer.startActiveSpan('app.agent', async (span) => {
      await agent.invoke(ask('Refund order A1.'), thread('c1'));
      span.end();
    });

    const spans = otel.spans();
    const host = otel.span('app.agent');
    const panoptes = spans.filter((span) => span.name.startsWith('panoptes.'));
    expect(panoptes.length).toBeGreaterThan(4);
    for (const span of panoptes) expect(descendsFrom(spans, span, host)).toBe(true);

    const refused = panoptes.find((span) => span.name === 'panoptes.guard issue_refund' && span.attributes['panoptes.guard.result'] === 'deny')!;
    expect(refused.attributes).toMatchObject({ 'gen_ai.conversation.id': 'c1', 'gen_ai.tool.call.id': 'r0', 'panoptes.guard.by': 'workflow', 'langfuse.observation.type': 'guardrail' });
    expect(refused.attributes['panoptes.guard.reason']).toMatch(/^The call to issue_refund was refused and did not run\./);
    const intervened = panoptes.filter((span) => span.name === 'panoptes.before_model');
    expect(intervened.flatMap((span) => span.events.map((event) => event.attributes?.['panoptes.intervention.strategy']))).toEqual(['system-prompt-append']);
    expect(panoptes.filter((span) => span.name === 'panoptes.check').map((span) => span.attributes['panoptes.state'])).toEqual(['account_action', 'verify_identity', 'account_action', 'resolution']);
    expect(await otel.points('panoptes.refusals')).toEqual([{ attributes: { 'gen_ai.tool.name': 'issue_refund', 'panoptes.refused_by': 'workflow' }, value: 1 }]);
    expect(await otel.points('panoptes.interventions')).toEqual([{ attributes: { 'panoptes.intervention.strategy': 'system-prompt-append' }, value: 1 }]);
  });

  it('a loop and a fail-open miss, in the trace of the run', async () => {
    const otel = createOtel();
    const flaky = storeFailingOnRead(3);
    const { monitor } = supportMonitor({ tracer: otel.tracer, meter: otel.meter, loops: true, store: flaky });
    const { tools } = supportTools();
    const model = fakeModel();
    for (let attempt = 0; attempt < 5; attempt++) model.respond(callTool('verify_identity', { customer_id: '42' }, `v${attempt}`));
    model.respond(new AIMessage('Is there anything else I can help with?'));
    const agent = createAgent({ model, tools, systemPrompt: SYSTEM, middleware: [panoptesMiddleware({ monitor })] });
    await otel.tracer.startActiveSpan('app.agent', async (span) => {
      await agent.invoke(ask('Verify me.'), thread('c2'));
      span.end();
    });
    const spans = otel.spans();
    const host = otel.span('app.agent');
    const loop = spans.find((span) => span.name.startsWith('panoptes.loop'))!;
    expect(loop.attributes['panoptes.loop.kind']).toBe('repeated-action');
    expect(descendsFrom(spans, loop, host)).toBe(true);
    const missed = spans.filter((span) => span.events.some((event) => event.name === 'panoptes.miss'));
    expect(missed).toHaveLength(1);
    expect(descendsFrom(spans, missed[0]!, host)).toBe(true);
    expect(await otel.points('panoptes.misses')).toEqual([{ attributes: { 'panoptes.miss.cause': 'store' }, value: 1 }]);
  });
});
