import { generateText, stepCountIs, wrapLanguageModel, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { guardTools, panoptesMiddleware, panoptesStopCondition, sessionIdFromMetadata } from '../../../adapters/ai-sdk/index.js';
import { createMonitor, InvalidOptionError, WorkflowViolationError, type Monitor } from '../../../src/index.js';
import { createFakeEmbedder } from '../../../src/testing/index.js';
import { callTool, exemplarWorkflow, recordingLogger, refusalIn, say, scriptedModel, sequenceModel, supportTools, systemOf, workflow } from './fixtures.js';

/** A conversation with every kind of content the adapter must carry through untouched. */
const richConversation: ModelMessage[] = [
  { role: 'system', content: 'You are a support agent.', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Hello, here is my receipt.' },
      { type: 'file', data: new Uint8Array([137, 80, 78, 71]), mediaType: 'image/png', providerOptions: { openai: { imageDetail: 'low' } } },
    ],
  },
  { role: 'assistant', content: [{ type: 'reasoning', text: 'The customer wants a refund.' }, { type: 'text', text: 'tell me more' }] },
  { role: 'user', content: 'I want my money back for order 42.' },
];

const compliantScript = [callTool('verify_identity', 'v1'), callTool('issue_refund', 'r1'), say('Refunded. Is there anything else?')];

describe('panoptesMiddleware through generateText', () => {
  it('changes nothing in a compliant run: the model receives exactly what it receives without Panoptes', async () => {
    const plain = sequenceModel(...compliantScript);
    await generateText({ model: plain, tools: supportTools().tools, messages: richConversation, allowSystemInMessages: true, stopWhen: stepCountIs(5) });

    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const observed = sequenceModel(...compliantScript);
    const model = wrapLanguageModel({ model: observed, middleware: panoptesMiddleware({ monitor, sessionId: 's1' }) });
    const result = await generateText({ model, tools: guardTools(supportTools().tools, { monitor, sessionId: 's1' }), messages: richConversation, allowSystemInMessages: true, stopWhen: stepCountIs(5) });

    expect(observed.doGenerateCalls).toHaveLength(3);
    expect(observed.doGenerateCalls).toEqual(plain.doGenerateCalls);
    expect(JSON.stringify(observed.doGenerateCalls.map((call) => call.prompt))).toBe(JSON.stringify(plain.doGenerateCalls.map((call) => call.prompt)));
    expect(result.text).toBe('Refunded. Is there anything else?');
    const report = await monitor.endSession('s1');
    expect(report.trace).toEqual(['greeting', 'verify_identity', 'account_action', 'resolution']);
    expect(report).toMatchObject({ violations: [], refusals: [], deviations: [] });
  });

  it('refuses a tool call that breaks precedence before it runs, and the next call carries the guidance', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const mock = sequenceModel(callTool('issue_refund', 'r1'), callTool('verify_identity', 'v1'), callTool('issue_refund', 'r2'), say('Done. Anything else?'));
    const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor, sessionId: 's1' }) });
    const { tools, ran } = supportTools();
    const result = await generateText({ model, tools: guardTools(tools, { monitor, sessionId: 's1' }), system: 'You are a support agent.', prompt: 'Refund order 42.', stopWhen: stepCountIs(6) });

    expect(ran).toEqual(['verify_identity', 'issue_refund']); // the first refund never ran
    const second = mock.doGenerateCalls[1]!.prompt;
    expect(systemOf(second)).toBe("You are a support agent.\n\n[WORKFLOW GUIDANCE]\nVerify the customer's identity before account_action.");
    expect(second.at(-1)).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'r1',
          toolName: 'issue_refund',
          output: { type: 'error-text', value: expect.stringMatching(/^The call to issue_refund was refused and did not run\..*verify_identity/) },
        },
      ],
    });
    expect(systemOf(mock.doGenerateCalls[2]!.prompt)).toBe('You are a support agent.'); // guidance applied once, then gone
    expect(refusalIn(result.steps[0]!.content)).toMatchObject({ by: 'monitor', constraints: ['verify_first'] });
    const report = await monitor.endSession('s1');
    expect(report.trace).toEqual(['greeting', 'verify_identity', 'account_action', 'resolution']);
    expect(report.refusals).toHaveLength(1);
    expect(report.verdicts.verify_first).toBe('satisfied');
  });

  it('blocks the next call after a critical violation: generateText rejects with WorkflowViolationError', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const mock = sequenceModel(callTool('issue_refund', 'r1'), say('never reached'));
    const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor, sessionId: 's1' }) });
    const { tools, ran } = supportTools(); // not guarded: the refund runs, and the violation is found afterwards
    const failure = await generateText({ model, tools, prompt: 'Refund order 42.', stopWhen: stepCountIs(5) }).catch((error: unknown) => error);

    expect(WorkflowViolationError.isInstance(failure)).toBe(true); // not wrapped or retried by the host
    expect(failure).toMatchObject({ intervention: 'verify_first', sessionId: 's1', modelMessage: "Verify the customer's identity before account_action." });
    expect(ran).toEqual(['issue_refund']);
    expect(mock.doGenerateCalls).toHaveLength(1); // the blocked call never reached the model
  });

  it('the stop condition ends the loop before the block a tool that ran unguarded caused, using nothing up', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const mock = sequenceModel(callTool('issue_refund', 'r1'), say('never reached'));
    const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor, sessionId: 's1' }) });
    const { tools, ran } = supportTools(); // not guarded: the refund runs, and the violation is found afterwards
    const result = await generateText({ model, tools, prompt: 'Refund order 42.', stopWhen: [stepCountIs(5), panoptesStopCondition({ monitor })] });

    expect(ran).toEqual(['issue_refund']);
    expect(result.steps).toHaveLength(1); // stopped instead of rejecting on the second call
    expect(mock.doGenerateCalls).toHaveLength(1);
    expect(await monitor.peek('s1')).toMatchObject({ action: 'block', intervention: { name: 'verify_first' } });
    // The condition used nothing up: the next call is still blocked.
    await expect(generateText({ model, prompt: 'Refund order 42.' })).rejects.toSatisfy(WorkflowViolationError.isInstance);
  });

  it('escalates guidance after max_applications, then the stop condition ends the loop before the block', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const mock = scriptedModel((_prompt, call) => callTool('issue_refund', `r${call}`)); // a model that never learns
    const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor, sessionId: 's1' }) });
    const { tools, ran } = supportTools();
    const result = await generateText({
      model,
      tools: guardTools(tools, { monitor, sessionId: 's1' }),
      system: 'You are a support agent.',
      prompt: 'Refund order 42.',
      stopWhen: [stepCountIs(30), panoptesStopCondition({ monitor })],
    });

    const strategies = mock.doGenerateCalls.map(({ prompt }) => {
      const last = prompt.at(-1)!;
      const lastText = last.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
      if (systemOf(prompt).includes('[WORKFLOW GUIDANCE]')) return 'guidance';
      if (lastText.startsWith('[Context Reminder]')) return 'reminder';
      if (lastText.startsWith('[System Note]')) return 'note';
      return 'none';
    });
    expect(strategies).toEqual(['none', 'guidance', 'guidance', 'guidance', 'reminder', 'reminder', 'reminder', 'note', 'note', 'note']);
    expect(result.steps).toHaveLength(10); // stopped: the eleventh call would be blocked
    expect(ran).toEqual([]);
    await expect(generateText({ model, prompt: 'Refund order 42.', system: 'You are a support agent.' })).rejects.toSatisfy(WorkflowViolationError.isInstance);
  });

  it('keeps parallel sessions apart, with ids from providerOptions, the header, or the conversation itself', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    // One model for every conversation: it refunds at once when asked in a hurry, and verifies first otherwise.
    const mock = scriptedModel((prompt) => {
      const hurried = JSON.stringify(prompt[1]).includes('hurry');
      const toolResults = prompt.filter((message) => message.role === 'tool').length;
      const plan = hurried ? ['issue_refund', 'verify_identity', 'issue_refund'] : ['verify_identity', 'issue_refund'];
      const next = plan[toolResults];
      return next === undefined ? say('Refunded. Anything else?') : callTool(next, `${next}-${toolResults}`);
    });
    const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor }) });
    const run = (prompt: string, sessionId: string, via: 'providerOptions' | 'header') =>
      generateText({
        model,
        tools: guardTools(supportTools().tools, { monitor, sessionId }),
        system: 'You are a support agent.',
        prompt,
        stopWhen: stepCountIs(6),
        ...(via === 'header' ? { headers: { 'X-Panoptes-Session-Id': sessionId } } : { providerOptions: { panoptes: { sessionId } } }),
      });
    const [calm, hurried] = await Promise.all([run('Refund order 42.', 'calm', 'providerOptions'), run("I'm in a hurry, refund order 7.", 'hurried', 'header')]);

    expect(calm.providerMetadata).toEqual({ panoptes: { sessionId: 'calm' } });
    expect(hurried.providerMetadata).toEqual({ panoptes: { sessionId: 'hurried' } });
    const [calmReport, hurriedReport] = [(await monitor.report('calm'))!, (await monitor.report('hurried'))!];
    expect(calmReport).toMatchObject({ trace: ['greeting', 'verify_identity', 'account_action', 'resolution'], refusals: [] });
    expect(hurriedReport.trace).toEqual(['greeting', 'verify_identity', 'account_action', 'resolution']);
    expect(hurriedReport.refusals).toHaveLength(1);
    const guided = mock.doGenerateCalls.filter((call) => systemOf(call.prompt).includes('[WORKFLOW GUIDANCE]'));
    expect(guided).toHaveLength(1);
    expect(JSON.stringify(guided[0]!.prompt)).toContain('hurry');
  });

  it('needs no ids at all: each tool call is checked in the session of the conversation that asked for it', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const mock = scriptedModel((prompt) => {
      const hurried = JSON.stringify(prompt[1]).includes('hurry');
      const toolResults = prompt.filter((message) => message.role === 'tool').length;
      const plan = hurried ? ['issue_refund', 'verify_identity', 'issue_refund'] : ['verify_identity', 'issue_refund'];
      const next = plan[toolResults];
      return next === undefined ? say('Refunded. Anything else?') : callTool(next, `call_${Math.random().toString(36).slice(2)}`);
    });
    const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor }) });
    const { tools, ran } = supportTools();
    const guarded = guardTools(tools, { monitor });
    const run = (prompt: string) => generateText({ model, tools: guarded, system: 'You are a support agent.', prompt, stopWhen: stepCountIs(6) });
    const [calm, hurried] = await Promise.all([run('Refund order 42.'), run("I'm in a hurry, refund order 7.")]);

    const [calmId, hurriedId] = [sessionIdFromMetadata(calm.providerMetadata)!, sessionIdFromMetadata(hurried.providerMetadata)!];
    expect(calmId).not.toBe(hurriedId);
    expect((await monitor.report(calmId))!).toMatchObject({ trace: ['greeting', 'verify_identity', 'account_action', 'resolution'], refusals: [] });
    expect((await monitor.report(hurriedId))!).toMatchObject({ trace: ['greeting', 'verify_identity', 'account_action', 'resolution'], refusals: [expect.objectContaining({ state: 'account_action' })] });
    expect(ran.sort()).toEqual(['issue_refund', 'issue_refund', 'verify_identity', 'verify_identity']);
  });

  it('places calls that name no session by their conversation: the same opening twice is two sessions, a continued conversation one', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const model = wrapLanguageModel({ model: sequenceModel(say('tell me more'), say('Could you tell me more?')), middleware: panoptesMiddleware({ monitor }) });
    const system = 'You are a support agent.';
    const ask = (prompt: string) => generateText({ model, system, prompt });
    const [first, again] = [await ask('Refund order 42.'), await ask('Refund order 42.')];
    const continued = await generateText({
      model,
      system,
      messages: [
        { role: 'user', content: 'Refund order 42.' },
        { role: 'assistant', content: first.text },
        { role: 'user', content: 'It arrived broken.' },
      ],
    });
    const ids = [first, again, continued].map((result) => sessionIdFromMetadata(result.providerMetadata));
    expect(ids[0]).toMatch(/^conversation-/);
    expect(ids[1]).not.toBe(ids[0]);
    expect(ids[2]).toBe(ids[0]);
    expect((await monitor.report(ids[0]!))!.steps).toHaveLength(2);
  });

  it('does not fail the agent when the embedder throws', async () => {
    const logger = recordingLogger();
    const embeddings = createFakeEmbedder({ embed: () => Promise.reject(new Error('embedding service down')) });
    const monitor = createMonitor({ workflow: exemplarWorkflow, embeddings, logger });
    const model = wrapLanguageModel({ model: sequenceModel(say('Something unusual.'), say('Something else entirely.')), middleware: panoptesMiddleware({ monitor, sessionId: 's1' }) });
    const first = await generateText({ model, prompt: 'Hi' });
    const second = await generateText({ model, prompt: 'Hi again' });
    expect([first.text, second.text]).toEqual(['Something unusual.', 'Something else entirely.']);
    expect(monitor.misses().embedding).toBeGreaterThanOrEqual(1);
    expect((await monitor.report('s1'))!.steps.map((step) => step.method)).toEqual(['fallback', 'fallback']);
  });

  it('does not fail the agent when the monitor itself throws, and says so once per cause', async () => {
    const logger = recordingLogger();
    const broken = brokenMonitor();
    const mock = sequenceModel(callTool('issue_refund', 'r1'), say('Done.'));
    const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor: broken, sessionId: 's1', logger }) });
    const { tools, ran } = supportTools();
    const result = await generateText({ model, tools: guardTools(tools, { monitor: broken, sessionId: 's1', logger }), prompt: 'Refund order 42.', stopWhen: [stepCountIs(5), panoptesStopCondition({ monitor: broken })] });
    expect(result.text).toBe('Done.');
    expect(ran).toEqual(['issue_refund']); // a monitor that cannot answer does not refuse
    expect(logger.warnings.map((warning) => warning.split(' failed')[0])).toEqual([
      '[panoptes] Applying interventions (monitor.beforeModel)',
      '[panoptes] Classifying a response (monitor.afterModel)',
      '[panoptes] The pre-emptive check (monitor.beforeTool)',
    ]);
  });

  it('passes a prompt it cannot read on unchanged', async () => {
    const logger = recordingLogger();
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const refund = { id: 'r1', name: 'issue_refund', args: {} };
    await monitor.afterModel('s1', { content: '', toolCalls: [refund] });
    await monitor.beforeTool('s1', refund); // refused: guidance is due, so the next call reads its prompt
    const middleware = panoptesMiddleware({ monitor, sessionId: 's1', logger });
    const params = { prompt: [{ role: 'assistant', content: null }] } as never;
    expect(await middleware.transformParams!({ params, type: 'generate', model: sequenceModel(say('hi')) })).toBe(params);
    expect(logger.warnings).toEqual([expect.stringMatching(/^\[panoptes\] Applying interventions \(monitor.beforeModel\) failed/)]);
  });

  it('rejects bad options at construction', () => {
    expect(() => panoptesMiddleware({ monitor: {} as Monitor })).toThrow(InvalidOptionError);
    const monitor = createMonitor({ workflow });
    expect(() => panoptesMiddleware({ monitor, sessionId: '' })).toThrow('Invalid option `sessionId`: received "".');
  });
});

function brokenMonitor(): Monitor {
  const fail = () => Promise.reject(new Error('store unreachable'));
  return { ...createMonitor({ workflow }), beforeModel: fail, afterModel: fail, beforeTool: fail, session: fail };
}
