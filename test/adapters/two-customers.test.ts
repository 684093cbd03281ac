/**
 * Regression (issue 13, a security defect): with no thread or session id, two conversations that opened with the
 * same system prompt and first user message shared one session, so the second customer's refund ran on the first
 * customer's identity check. Tested through the package as it ships: `panoptes/*` resolve to the built `dist/`.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { fakeModel } from '@langchain/core/testing';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createAgent } from 'langchain';
import { createMonitor, parseWorkflow } from 'panoptes';
import { guardTools, panoptesMiddleware as aiSdkMiddleware, ToolCallRefusedError } from 'panoptes/ai-sdk';
import { panoptesMiddleware } from 'panoptes/langchain';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

const workflow = parseWorkflow(`
name: support
states:
  - { name: greeting, initial: true }
  - { name: verify_identity, classification: { tool_calls: [verify_identity] } }
  - { name: account_action, classification: { tool_calls: [issue_refund] } }
constraints:
  - { name: verify_first, type: precedence, trigger: account_action, target: verify_identity, severity: critical }
`);
const SYSTEM = 'You are a support agent.';
const OPENING = 'Hi, I want a refund for order A-1042.';
const quiet = { warn: () => {} };

describe('two customers with the same opening and no ids', () => {
  it('createAgent: the second customer’s unverified refund is refused', async () => {
    const monitor = createMonitor({ workflow, logger: quiet });
    const refund = vi.fn(async ({ order_id }: { order_id: string }) => `Refund issued for ${order_id}.`);
    const tools = [
      langchainTool(async ({ customer_id }: { customer_id: string }) => `Customer ${customer_id} verified.`, { name: 'verify_identity', description: 'Verify', schema: z.object({ customer_id: z.string() }) }),
      langchainTool(refund, { name: 'issue_refund', description: 'Refund', schema: z.object({ order_id: z.string() }) }),
    ];
    const call = (name: string, args: Record<string, unknown>, id: string) => new AIMessage({ content: '', tool_calls: [{ name, args, id, type: 'tool_call' }] });
    const model = fakeModel()
      // Customer 1 verifies, then is refunded.
      .respond(call('verify_identity', { customer_id: '42' }, 'v1'))
      .respond(call('issue_refund', { order_id: 'A-1042' }, 'r1'))
      .respond(new AIMessage('Your refund is on its way.'))
      // Customer 2 asks for the same refund and never verifies.
      .respond(call('issue_refund', { order_id: 'A-1042' }, 'r2'))
      .respond(new AIMessage('Done.'));
    const agent = createAgent({ model, tools, systemPrompt: SYSTEM, middleware: [panoptesMiddleware({ monitor })] });

    await agent.invoke({ messages: [new HumanMessage(OPENING)] });
    const second = await agent.invoke({ messages: [new HumanMessage(OPENING)] });

    expect(refund).toHaveBeenCalledTimes(1);
    const refusal = second.messages.find((message: BaseMessage) => ToolMessage.isInstance(message) && message.tool_call_id === 'r2') as ToolMessage;
    expect(refusal.status).toBe('error');
    expect(refusal.content).toContain("would break the rule 'verify_first'");
  });

  it('generateText: the second customer’s unverified refund is refused', async () => {
    const monitor = createMonitor({ workflow, logger: quiet });
    const refund = vi.fn(async () => 'refunded');
    const noInput = jsonSchema<Record<string, never>>({ type: 'object', properties: {}, additionalProperties: false });
    const tools = guardTools(
      {
        verify_identity: tool({ description: 'Verify', inputSchema: noInput, execute: async () => 'verified' }),
        issue_refund: tool({ description: 'Refund', inputSchema: noInput, execute: refund }),
      },
      { monitor },
    );
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
    const callTool = (toolName: string, toolCallId: string) => ({ content: [{ type: 'tool-call' as const, toolCallId, toolName, input: '{}' }], finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' }, usage, warnings: [] });
    const say = (text: string) => ({ content: [{ type: 'text' as const, text }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] });
    const script = [callTool('verify_identity', 'v1'), callTool('issue_refund', 'r1'), say('Refunded.'), callTool('issue_refund', 'r2'), say('Done.')];
    let calls = 0;
    const model = wrapLanguageModel({ model: new MockLanguageModelV3({ doGenerate: async () => script[calls++]! }), middleware: aiSdkMiddleware({ monitor }) });
    const ask = () => generateText({ model, tools, system: SYSTEM, prompt: OPENING, stopWhen: stepCountIs(5) });

    await ask();
    const second = await ask();

    expect(refund).toHaveBeenCalledTimes(1);
    const refusal = second.steps.flatMap((step) => step.content).find((part) => part.type === 'tool-error' && part.toolCallId === 'r2');
    const error = refusal?.type === 'tool-error' ? refusal.error : undefined;
    expect(ToolCallRefusedError.isInstance(error) && error.refusal).toMatchObject({ by: 'monitor', constraints: ['verify_first'] });
  });
});
