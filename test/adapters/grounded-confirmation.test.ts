/**
 * Grounded confirmations through real hosts: a LangChain `createAgent` agent with `panoptesMiddleware`, the AI SDK's
 * `generateText` with `guardTools`, and LangGraph's `GuardedToolNode`. Each passes the conversation, so the user's
 * yes counts for the call the agent restated, and not for another.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool as langchainTool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { guardTools } from '../../adapters/ai-sdk/index.js';
import { panoptesMiddleware } from '../../adapters/langchain/index.js';
import { GuardedToolNode } from '../../adapters/langgraph/index.js';
import { createFactStore, createSentinel, parseRulebase } from '../../src/index.js';
import { createFakeClock } from '../../src/testing/index.js';
import { UPGRADE_RULES } from '../guards/grounded-fixtures.js';
import { callTool, refusalIn, sequenceModel } from './ai-sdk/fixtures.js';

const flights = [{ flight_number: 'HAT001', date: '2024-05-20' }];
const upgrade = (cabin: string) => ({ reservation_id: 'ABC123', flights, cabin, payment_id: 'credit_card_7815826' });
const RESTATED = 'Upgrade ABC123 to business on HAT001 (May 20), paid with credit card 7815826? (yes/no)';

const sentinelOf = () => createSentinel({ rulebase: parseRulebase(UPGRADE_RULES, { source: 'upgrade.rules' }), facts: createFactStore({ clock: createFakeClock() }) });

describe('grounded confirmations in the LangChain middleware', () => {
  it('runs the restated call after the yes, and refuses another cabin, naming it', async () => {
    const ran: string[] = [];
    const changeFlights = langchainTool(async (args: { cabin: string }) => (ran.push(args.cabin), 'changed'), {
      name: 'change_flights',
      description: 'Change flights',
      schema: z.object({ reservation_id: z.string(), flights: z.array(z.object({ flight_number: z.string(), date: z.string() })), cabin: z.string(), payment_id: z.string() }),
    });
    let id = 0;
    const call = (cabin: string) => new AIMessage({ content: '', tool_calls: [{ id: `c${++id}`, name: 'change_flights', args: upgrade(cabin), type: 'tool_call' }] });
    const model = fakeModel()
      .respond(new AIMessage(RESTATED))
      .respond(call('first')) // not the restated cabin
      .respond(call('business'))
      .respond(call('business')) // again, without a new yes
      .respond(new AIMessage('Done.'));
    const agent = createAgent({ model, tools: [changeFlights], middleware: [panoptesMiddleware({ sentinel: sentinelOf() })], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: 'g1' } };
    await agent.invoke({ messages: [new HumanMessage('Upgrade ABC123 to business.')] }, config);
    const state = await agent.invoke({ messages: [new HumanMessage('Yes.')] }, config);
    const results = (state.messages as BaseMessage[]).filter((message): message is ToolMessage => ToolMessage.isInstance(message));
    expect(ran).toEqual(['business']);
    expect(results.map((message) => message.status)).toEqual(['error', 'success', 'error']);
    expect(results[0]!.text).toContain('did not state cabin of this call');
    expect(results[2]!.text).toContain("The user's last yes already confirmed a call");
  });
});

describe('grounded confirmations in AI SDK guardTools', () => {
  it("reads the yes from the call's messages", async () => {
    const ran: string[] = [];
    const input = jsonSchema<{ cabin: string }>({ type: 'object', properties: { reservation_id: {}, flights: {}, cabin: {}, payment_id: {} } });
    const tools = guardTools({ change_flights: tool({ description: 'Change flights', inputSchema: input, execute: async ({ cabin }) => (ran.push(cabin), 'changed') }) }, { sentinel: sentinelOf() });
    const model = sequenceModel(callTool('change_flights', 'a1', upgrade('economy')), callTool('change_flights', 'a2', upgrade('business')), callTool('change_flights', 'a3', upgrade('business')));
    const result = await generateText({
      model,
      tools,
      messages: [
        { role: 'user', content: 'Upgrade ABC123 to business.' },
        { role: 'assistant', content: RESTATED },
        { role: 'user', content: 'yes please' },
      ],
      stopWhen: stepCountIs(3),
    });
    expect(ran).toEqual(['business']);
    expect(refusalIn(result.steps[0]!.content, 'a1')).toMatchObject({ by: 'sentinel', blockers: [{ kind: 'ask', unstated: ['cabin'] }] });
    expect(refusalIn(result.steps[2]!.content, 'a3')).toMatchObject({ by: 'sentinel', blockers: [{ kind: 'ask', spent: true }] });
  });
});

describe('grounded confirmations in LangGraph GuardedToolNode', () => {
  it('reads the yes from the graph state', async () => {
    const ran: string[] = [];
    const changeFlights = langchainTool(async (args: { cabin: string }) => (ran.push(args.cabin), 'changed'), {
      name: 'change_flights',
      description: 'Change flights',
      schema: z.object({ reservation_id: z.string(), flights: z.array(z.object({ flight_number: z.string(), date: z.string() })), cabin: z.string(), payment_id: z.string() }),
    });
    const node = new GuardedToolNode([changeFlights], { sentinel: sentinelOf() });
    const history = [new HumanMessage('Upgrade ABC123.'), new AIMessage(RESTATED), new HumanMessage('yes')];
    const answer = (cabin: string, id: string) => new AIMessage({ content: '', tool_calls: [{ id, name: 'change_flights', args: upgrade(cabin), type: 'tool_call' }] });
    const refused = (await node.invoke({ messages: [...history, answer('economy', 'n1')] })) as { messages: ToolMessage[] };
    expect(refused.messages[0]).toMatchObject({ status: 'error' });
    expect(refused.messages[0]!.text).toContain('did not state cabin');
    const allowed = (await node.invoke({ messages: [...history, answer('business', 'n2')] })) as { messages: ToolMessage[] };
    expect(allowed.messages[0]).toMatchObject({ content: 'changed' });
    expect(ran).toEqual(['business']);
  });
});
