import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { panoptesMiddleware } from '../../../adapters/langchain/index.js';
import { callTool, supportMonitor, supportTools } from './helpers.js';

const ask = (text: string) => ({ messages: [new HumanMessage(text)] });
const thread = (id: string) => ({ configurable: { thread_id: id }, recursionLimit: 100 });

describe("the monitor's session API through createAgent", () => {
  it('history, validNextStates and resetSession read and reset what the agent did; after close the agent goes on unchecked, told why once', async () => {
    const { monitor } = supportMonitor();
    const warnings: string[] = [];
    const logger = { warn: (message: string, error?: unknown) => void warnings.push(`${message} ${String(error)}`) };
    const { tools } = supportTools();
    const model = fakeModel()
      .respond(callTool('verify_identity', { customer_id: '42' }, 'v1'))
      .respond(new AIMessage('Verified. What else?'))
      .respond(new AIMessage('Still here.'));
    const agent = createAgent({ model, tools, middleware: [panoptesMiddleware({ monitor, logger })] });
    await agent.invoke(ask('I am customer 42.'), thread('c1'));

    const history = (await monitor.history('c1'))!;
    expect(history.steps.map((step) => [step.state, step.method])).toEqual([
      ['verify_identity', 'tool_call'],
      ['verify_identity', 'fallback'],
    ]);
    for (const step of history.steps) expect(step.at).toBeGreaterThanOrEqual(history.initial.at);
    expect((await monitor.validNextStates('c1')).valid).toContain('account_action');

    await monitor.resetSession('c1');
    expect((await monitor.report('c1'))!.trace).toEqual(['greeting']);

    await monitor.close();
    const result = await agent.invoke(ask('Anything else?'), thread('c2'));
    expect(result.messages.at(-1)?.content).toBe('Still here.');
    expect(warnings.join('\n')).toContain('monitor.beforeModel failed; the agent goes on unchecked. Later failures here are not logged. ClosedError: monitor.beforeModel() was called after monitor.close()');
  });
});
