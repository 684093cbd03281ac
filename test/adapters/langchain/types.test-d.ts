/**
 * Type tests: the adapters accept LangChain's own types, and the `@example`s of their doc comments compile (each
 * is repeated here, inside a function that is type-checked and never run).
 */
import { HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { Runnable } from '@langchain/core/runnables';
import type { DynamicStructuredTool, StructuredToolInterface } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { createAgent, type AgentMiddleware } from 'langchain';
import { expectTypeOf } from 'vitest';
import {
  defaultBlockMessage,
  FACTS_HEADER,
  fromChatMessages,
  hostOf,
  PanoptesCallbackHandler,
  panoptesMiddleware,
  policyTools,
  resolveSessionId,
  textOf,
  toChatMessage,
  toChatMessages,
  ToolCallRefusedError,
  wrapTools,
  type PanoptesMiddlewareOptions,
} from '../../../adapters/langchain/index.js';
import { createGraphMonitor, sessionFromState } from '../../../adapters/langgraph/index.js';
import { createMonitor, loadWorkflow, type Monitor, type Sentinel } from '../../../src/index.js';

declare const monitor: Monitor;
declare const sentinel: Sentinel;
declare const model: Parameters<typeof createAgent>[0]['model'];
declare const tools: DynamicStructuredTool[];
declare const chain: Runnable<string, string>;

expectTypeOf(panoptesMiddleware({ monitor })).toExtend<AgentMiddleware>();
expectTypeOf(wrapTools(tools, { sentinel })).toEqualTypeOf<DynamicStructuredTool[]>();
expectTypeOf(policyTools(sentinel)).toExtend<StructuredToolInterface[]>();
expectTypeOf<{ onBlock: 'end' | 'throw' | undefined }>().toExtend<Pick<PanoptesMiddlewareOptions, 'onBlock'>>();
expectTypeOf(toChatMessages).parameter(0).toEqualTypeOf<readonly BaseMessage[]>();

export async function docExamples() {
  // @ts-expect-error a misspelt option is rejected, not ignored
  panoptesMiddleware({ monitor, onblock: 'end' });

  // panoptesMiddleware
  const agent = createAgent({ model, tools, middleware: [panoptesMiddleware({ monitor })] });
  await agent.invoke({ messages: [new HumanMessage('Refund order A1')] }, { configurable: { thread_id: 'c-42' } });
  const support = createMonitor({ workflow: await loadWorkflow('examples/workflows/customer-support.yaml') });
  createAgent({ model, tools: [...wrapTools(tools, { sentinel }), ...policyTools(sentinel)], middleware: [panoptesMiddleware({ monitor: support, sentinel })] });
  panoptesMiddleware({ monitor, blockMessage: (block) => `Sorry, I cannot continue. (${defaultBlockMessage(block)})` });
  // With a graph monitor, the session is in the agent's state, typed.
  const checkpointed = createAgent({ model, tools, middleware: [panoptesMiddleware({ monitor: createGraphMonitor({ workflow: await loadWorkflow('support.yaml') }) })], checkpointer: new MemorySaver() });
  const state = await checkpointed.invoke({ messages: [new HumanMessage('Refund order A1')] }, { configurable: { thread_id: 'c-42' } });
  expectTypeOf(state.panoptes).toEqualTypeOf<string | null>();
  expectTypeOf(sessionFromState(state)?.workflow.trace).toEqualTypeOf<string[] | undefined>();
  const systemPrompt = '';
  expectTypeOf(systemPrompt.includes(FACTS_HEADER)).toBeBoolean();

  // PanoptesCallbackHandler, ToolCallRefusedError
  const handler = new PanoptesCallbackHandler({ monitor, raiseError: true });
  await chain.invoke('input', { callbacks: [handler], metadata: { session_id: 'c-42' } });
  const issueRefund = tools[0]!;
  const toolCall = { id: 'c1', name: 'issue_refund', args: {}, type: 'tool_call' as const };
  try {
    await issueRefund.invoke(toolCall, { callbacks: [new PanoptesCallbackHandler({ monitor, raiseError: true })] });
  } catch (error) {
    if (ToolCallRefusedError.isInstance(error)) console.log(error.toolName, error.constraints);
  }

  // wrapTools outside createAgent
  const guarded = wrapTools(tools, { sentinel });
  expectTypeOf(new ToolNode([...guarded, ...policyTools(sentinel)])).toExtend<ToolNode>();

  // converters and session ids
  expectTypeOf(textOf([{ type: 'text', text: 'Look: ' }])).toBeString();
  const human = new HumanMessage('Hi');
  expectTypeOf(hostOf(toChatMessage(human)) === human).toBeBoolean();
  const messages = [new SystemMessage('Be brief.'), human];
  expectTypeOf(fromChatMessages(toChatMessages(messages))).toEqualTypeOf<BaseMessage[]>();
  expectTypeOf(resolveSessionId({ threadId: 't1', fallback: () => monitor.conversations.sessionOf(toChatMessages(messages)) })).toBeString();
  expectTypeOf(new ToolMessage({ content: '', tool_call_id: 'c1' })).toExtend<BaseMessage>();
}
