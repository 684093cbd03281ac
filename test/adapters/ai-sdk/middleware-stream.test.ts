import { stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { guardTools, panoptesMiddleware, panoptesStopCondition } from '../../../adapters/ai-sdk/index.js';
import { createMonitor, WorkflowViolationError, type Monitor } from '../../../src/index.js';
import { callTool, recordingLogger, refusalFrom, say, scriptedModel, sequenceModel, supportTools, systemOf, workflow } from './fixtures.js';

/** A monitor whose afterModel waits until the test opens the gate, to show what waits for classification. */
function gatedMonitor() {
  const monitor = createMonitor({ workflow, logger: recordingLogger() });
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const events: string[] = [];
  const gated: Monitor = {
    ...monitor,
    afterModel: async (...args) => {
      events.push('classification started');
      await gate;
      const result = await monitor.afterModel(...args);
      events.push('classification done');
      return result;
    },
  };
  return { monitor: gated, open, events };
}

describe('panoptesMiddleware through streamText', () => {
  it('passes every text chunk on before the response is classified, then classifies it', async () => {
    const { monitor, open, events } = gatedMonitor();
    const model = wrapLanguageModel({ model: sequenceModel(say('Could you tell me more about the order?')), middleware: panoptesMiddleware({ monitor, sessionId: 's1' }) });
    const result = streamText({ model, prompt: 'My order is wrong.' });
    const reader = result.textStream.getReader();
    let text = '';
    while (text !== 'Could you tell me more about the order?') {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended early');
      text += value;
      events.push(`chunk ${JSON.stringify(value)}`);
    }
    expect(events.at(-1)).toBe('chunk "order?"');
    expect(events).not.toContain('classification done'); // every chunk arrived while classification was held
    open();
    expect((await reader.read()).done).toBe(true);
    expect(events.at(-1)).toBe('classification done');
    expect((await monitor.report('s1'))!.trace).toEqual(['greeting', 'identify_issue']);
    expect(await result.providerMetadata).toEqual({ panoptes: { sessionId: 's1' } });
  });

  it('classifies a streamed tool call before guardTools checks it, so a refused call is recorded as refused', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const script = [callTool('issue_refund', 'r1', {}, 'Refunding now.'), callTool('verify_identity', 'v1'), callTool('issue_refund', 'r2'), say('Done. Anything else?')];
    // The finish chunk comes late, so the host would run a tool call that was passed on at once before it.
    const mock = scriptedModel((_prompt, call) => script[call]!, { finishDelayMs: 20 });
    const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor, sessionId: 's1' }) });
    const { tools, ran } = supportTools();
    const result = streamText({ model, tools: guardTools(tools, { monitor, sessionId: 's1' }), system: 'You are a support agent.', prompt: 'Refund order 42.', stopWhen: stepCountIs(6) });
    expect(await result.text).toBe('Done. Anything else?');

    expect(ran).toEqual(['verify_identity', 'issue_refund']);
    expect(systemOf(mock.doStreamCalls[1]!.prompt)).toContain("[WORKFLOW GUIDANCE]\nVerify the customer's identity before account_action.");
    const report = await monitor.endSession('s1');
    expect(report.steps.map((step) => step.state)).toEqual(['account_action', 'verify_identity', 'account_action', 'resolution']);
    expect(report.trace).toEqual(['greeting', 'verify_identity', 'account_action', 'resolution']);
    expect(report.refusals).toHaveLength(1);
  });

  it('keeps that order on a host that runs a tool as soon as its call arrives', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const middleware = panoptesMiddleware({ monitor, sessionId: 's1' });
    const { tools, ran } = supportTools();
    const guarded = guardTools(tools, { monitor, sessionId: 's1' });
    const mock = scriptedModel(() => callTool('issue_refund', 'r1'), { finishDelayMs: 20 });
    const params = { prompt: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Refund order 42.' }] }] };
    const { stream } = await middleware.wrapStream!({ doStream: () => mock.doStream(params), doGenerate: () => mock.doGenerate(params), params, model: mock });
    const executions: Array<Promise<unknown>> = [];
    for await (const part of stream) {
      if (part.type === 'tool-call') executions.push(refusalFrom(guarded.issue_refund.execute!({}, { toolCallId: part.toolCallId, messages: [] })));
    }
    expect(await Promise.all(executions)).toEqual([expect.objectContaining({ by: 'monitor' })]);
    expect(ran).toEqual([]);
    await monitor.beforeModel('s1', { messages: [] }); // the next call: a call recorded as run would enter its state now
    expect((await monitor.report('s1'))!).toMatchObject({ trace: ['greeting'], violations: [] });
  });

  it('reports a block as an error part, and the stop condition ends the loop before it', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const mock = scriptedModel(() => callTool('lookup_order', 'l1', {}, 'Here are the internal notes on your order.'));
    // Delivered, the leak blocks the next call (withheld, it would not reach the caller: withheld-text.test.ts).
    const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor, sessionId: 's1', onViolatingText: 'deliver' }) });
    const lookup = { lookup_order: { inputSchema: supportTools().tools.verify_identity.inputSchema, execute: async () => 'order 42: shipped' } };
    const stopped = streamText({ model, tools: lookup, prompt: 'Where is order 42?', stopWhen: [stepCountIs(5), panoptesStopCondition({ monitor })] });
    expect(await stopped.steps).toHaveLength(1);

    const errors: unknown[] = [];
    const blocked = streamText({ model, prompt: 'Hello?', onError: ({ error }) => void errors.push(error) });
    const parts = [];
    for await (const part of blocked.fullStream) parts.push(part.type);
    expect(parts).toContain('error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toSatisfy(WorkflowViolationError.isInstance);
    expect(mock.doStreamCalls).toHaveLength(1);
  });
});
