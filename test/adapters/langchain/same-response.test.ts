import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { panoptesMiddleware } from '../../../adapters/langchain/index.js';
import { supportMonitor, supportTools } from './helpers.js';

// Issue 24, bug 1, through the real host: a refund called in the same response as the identity check it needs is
// refused (the model had not seen the check's result), and goes through once called again after it.
describe('a refund in the same response as the identity check, through createAgent', () => {
  it('is refused before it runs; the refund called after the check’s result runs', async () => {
    const { monitor } = supportMonitor();
    const { tools, verify, refund } = supportTools();
    const together = new AIMessage({
      content: '',
      tool_calls: [
        { name: 'verify_identity', args: { customer_id: '42' }, id: 'v1', type: 'tool_call' },
        { name: 'issue_refund', args: { order_id: 'A1' }, id: 'r1', type: 'tool_call' },
      ],
    });
    const model = fakeModel()
      .respond(together)
      .respond(new AIMessage({ content: '', tool_calls: [{ name: 'issue_refund', args: { order_id: 'A1' }, id: 'r2', type: 'tool_call' }] }))
      .respond(new AIMessage('Your refund is on its way. Is there anything else I can help with?'));
    const agent = createAgent({ model, tools, systemPrompt: 'You are a support agent.', middleware: [panoptesMiddleware({ monitor })] });
    const result = await agent.invoke({ messages: [new HumanMessage('Refund order A1, I am customer 42.')] }, { configurable: { thread_id: 'c1' } });

    const refusal = result.messages.find((message) => ToolMessage.isInstance(message) && message.tool_call_id === 'r1') as ToolMessage;
    expect(refusal.status).toBe('error');
    expect(refusal.content).toMatch(/^The call to issue_refund was refused and did not run\..*same response/);
    expect(verify).toHaveBeenCalledTimes(1);
    expect(refund).toHaveBeenCalledTimes(1); // r2 only
    expect((await monitor.report('c1'))!).toMatchObject({
      trace: ['greeting', 'verify_identity', 'account_action', 'resolution'],
      violations: [],
      refusals: [expect.objectContaining({ state: 'account_action', constraints: ['verify_before_account_action'] })],
    });
  });
});
