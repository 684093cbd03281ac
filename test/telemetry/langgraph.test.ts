import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { Annotation, END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { toolsCondition } from '@langchain/langgraph/prebuilt';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphMonitor, GuardedToolNode, PanoptesAnnotation, wrapModelNode } from '../../adapters/langgraph/index.js';
import { callTool, recordingLogger, supportTools, supportWorkflow } from '../adapters/langchain/helpers.js';
import { createOtel, descendsFrom } from './harness.js';

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});

const State = Annotation.Root({ ...MessagesAnnotation.spec, ...PanoptesAnnotation.spec });


describe('telemetry through a LangGraph StateGraph (wrapModelNode, GuardedToolNode)', () => {
  it("a refused refund and its guidance, under the application's span around the graph's run", async () => {
    const otel = createOtel();
    const monitor = createGraphMonitor({ workflow: supportWorkflow, logger: recordingLogger(), tracer: otel.tracer, meter: otel.meter });
    const model = fakeModel()
      .respond(callTool('issue_refund', { order_id: 'A1' }, 'r0'))
      .respond(callTool('verify_identity', { customer_id: '42' }, 'v1'))
      .respond(callTool('issue_refund', { order_id: 'A1' }, 'r1'))
      .respond(new AIMessage('Your refund is on its way. Is there anything else I can help with?'));
    const { tools } = supportTools();
    const graph = new StateGraph(State)
      .addNode('agent', wrapModelNode(async (state: typeof State.State) => ({ messages: [await model.invoke([new SystemMessage('You are a support agent.'), ...state.messages])] }), { monitor }))
      .addNode('tools', new GuardedToolNode(tools, { monitor }))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', toolsCondition, ['tools', END])
      .addEdge('tools', 'agent')
      .compile();
    await otel.tracer.startActiveSpan('app.graph', async (span) => {
      await graph.invoke({ messages: [new HumanMessage('Refund order A1.')] }, { configurable: { thread_id: 'g1' }, recursionLimit: 50 });
      span.end();
    });

    const spans = otel.spans();
    const host = otel.span('app.graph');
    const panoptes = spans.filter((span) => span.name.startsWith('panoptes.'));
    expect(panoptes.length).toBeGreaterThan(4);
    for (const span of panoptes) expect(descendsFrom(spans, span, host)).toBe(true);
    const refused = panoptes.find((span) => span.name === 'panoptes.guard issue_refund' && span.attributes['panoptes.guard.result'] === 'deny')!;
    expect(refused.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'r0', 'panoptes.guard.by': 'workflow', 'openinference.span.kind': 'GUARDRAIL' });
    expect(refused.attributes['panoptes.guard.reason']).toMatch(/^The call to issue_refund was refused and did not run\./);
    expect(panoptes.some((span) => span.name === 'panoptes.before_model' && span.events.some((event) => event.name === 'panoptes.intervention'))).toBe(true);
    expect(await otel.points('panoptes.refusals')).toEqual([{ attributes: { 'gen_ai.tool.name': 'issue_refund', 'panoptes.refused_by': 'workflow' }, value: 1 }]);
  });
});
