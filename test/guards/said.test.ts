/**
 * Duties: `said(State)` makes the workflow classifier's states facts of the rules, and `requires said(S) before tool`
 * refuses the tool until the agent has said it (a pattern, an exemplar or a tool call recognised that state).
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { panoptesMiddleware } from '../../adapters/langchain/index.js';
import { analyzeRulebase, connectWorkflowStates, createFactStore, createMonitor, createSentinel, guardToolCall, parseRulebase, parseWorkflow } from '../../src/index.js';
import { createFakeClock } from '../../src/testing/index.js';

const workflow = parseWorkflow(`
name: booking
states:
  - { name: start, initial: true }
  - { name: offered_insurance, classification: { patterns: ["travel insurance"] } }
  - { name: book, classification: { tool_calls: [book] } }
`);
const RULES = `
guard book.
requires said(offered_insurance) "offer travel insurance before booking" before book.
`;

const world = () => {
  const monitor = createMonitor({ workflow });
  const sentinel = createSentinel({ rulebase: parseRulebase(RULES, { source: 'duty.rules' }), facts: createFactStore({ clock: createFakeClock() }) });
  connectWorkflowStates(monitor, sentinel);
  return { monitor, sentinel };
};

describe('said(State): a duty before an action', () => {
  it('refuses the action until the workflow reached the state, in the words of the rule', async () => {
    const { monitor, sentinel } = world();
    const decide = () => guardToolCall({ id: 'b', name: 'book', args: {} }, { monitor, sentinel, sessionId: 's' });
    await monitor.afterModel('s', { content: 'Booking now.', toolCalls: [{ id: 'b', name: 'book', args: {} }] });
    const refused = await decide();
    expect(refused).toMatchObject({ allowed: false, by: 'rules' });
    expect(refused.allowed || refused.reason).toBe(
      "book is not allowed by the policy: offer travel insurance before booking.\nDo not retry it with these arguments unless the facts change; tell the user why.",
    );
    await monitor.afterModel('s', { content: 'Would you like travel insurance, for $30 per passenger?', toolCalls: [] });
    expect(sentinel.facts.has('said', ['offered_insurance'])).toBe(true);
    await monitor.afterModel('s', { content: '', toolCalls: [{ id: 'b2', name: 'book', args: {} }] });
    expect(await guardToolCall({ id: 'b2', name: 'book', args: {} }, { monitor, sentinel, sessionId: 's' })).toEqual({ allowed: true });
  });

  it('checks at load: a tool without a guard, a variable in the requirement, an unknown predicate', () => {
    const errors = (text: string) => analyzeRulebase(text, { source: 'd.rules' }).diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code}@${d.line}`);
    expect(errors('requires said(x) before book.')).toEqual(['requires-without-guard@1']);
    expect(errors('guard book.\nrequires said(S) before book.')).toEqual(['unsafe-builtin@2']);
    expect(errors('guard book.\nrequires sayd(x) before book.')).toEqual(['undefined-predicate@2']);
  });

  it('through the LangChain middleware given a monitor and a sentinel', async () => {
    const ran: string[] = [];
    const book = tool(async () => (ran.push('book'), 'booked'), { name: 'book', description: 'Book', schema: z.object({}) });
    let id = 0;
    const call = () => new AIMessage({ content: '', tool_calls: [{ id: `c${++id}`, name: 'book', args: {}, type: 'tool_call' }] });
    const model = fakeModel().respond(call()).respond(new AIMessage('Would you like travel insurance?')).respond(call()).respond(new AIMessage('Booked.'));
    const { monitor, sentinel } = { monitor: createMonitor({ workflow }), sentinel: createSentinel({ rulebase: parseRulebase(RULES, { source: 'duty.rules' }), facts: createFactStore({ clock: createFakeClock() }) }) };
    const agent = createAgent({ model, tools: [book], middleware: [panoptesMiddleware({ monitor, sentinel })], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: 't' } };
    const first = await agent.invoke({ messages: [new HumanMessage('Book it.')] }, config);
    expect((first.messages as BaseMessage[]).filter((message) => ToolMessage.isInstance(message)).map((message) => (message as ToolMessage).status)).toEqual(['error']);
    expect(ran).toEqual([]);
    await agent.invoke({ messages: [new HumanMessage('No insurance, book it.')] }, config);
    expect(ran).toEqual(['book']);
  });
});
