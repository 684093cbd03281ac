/**
 * Type tests: the LangGraph adapter fits LangGraph's own types (a node for `addNode`, a `ToolNode`, a state
 * annotation), and the `@example`s of its doc comments compile.
 */
import type { BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Annotation, END, MemorySaver, MessagesAnnotation, START, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { expectTypeOf } from 'vitest';
import { createGraphMonitor, graphSessionId, GuardedToolNode, isGraphMonitor, PanoptesAnnotation, sessionFromState, wrapModelNode } from '../../../adapters/langgraph/index.js';
import { createMonitor, loadWorkflow, type MonitorSession, type Workflow } from '../../../src/index.js';

declare const workflow: Workflow;
declare const model: { invoke(messages: BaseMessage[]): Promise<BaseMessage> };
declare const verifyIdentity: StructuredToolInterface;
declare const issueRefund: StructuredToolInterface;

const State = Annotation.Root({ ...MessagesAnnotation.spec, ...PanoptesAnnotation.spec });
type GraphState = typeof State.State;
expectTypeOf<GraphState['panoptes']>().toEqualTypeOf<string | null>();
expectTypeOf(sessionFromState).returns.toEqualTypeOf<MonitorSession | null>();
expectTypeOf<GraphState['messages']>().toEqualTypeOf<BaseMessage[]>();
expectTypeOf(new GuardedToolNode([issueRefund], { monitor: createGraphMonitor({ workflow }) })).toExtend<ToolNode>();

export async function docExamples() {
  const monitor = createGraphMonitor({ workflow: await loadWorkflow('examples/workflows/customer-support.yaml') });
  const callModel = async (state: typeof State.State) => ({ messages: [await model.invoke(state.messages)] });
  const graph = new StateGraph(State)
    .addNode('agent', wrapModelNode(callModel, { monitor, systemPrompt: 'You are a support agent.' }))
    .addNode('tools', new GuardedToolNode([verifyIdentity, issueRefund], { monitor }))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition, ['tools', END])
    .addEdge('tools', 'agent')
    .compile();
  const state = await graph.invoke({ messages: [] });
  expectTypeOf(state.panoptes).toEqualTypeOf<string | null>();
  const saved = (await graph.getState({ configurable: { thread_id: 'ticket-1042' } })).values;
  expectTypeOf(sessionFromState(saved)?.workflow.trace).toEqualTypeOf<string[] | undefined>();

  // The README's snippet as written: an inline node, a checkpointer.
  const systemPrompt = 'You are a support agent.';
  const checkpointer = new MemorySaver();
  const tools = [verifyIdentity, issueRefund];
  const readmeGraph = new StateGraph(State)
    .addNode('agent', wrapModelNode(async (state) => ({ messages: [await model.invoke(state.messages)] }), { monitor, systemPrompt }))
    .addNode('tools', new GuardedToolNode(tools, { monitor }))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition, ['tools', END])
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
  expectTypeOf((await readmeGraph.invoke({ messages: [] }, { configurable: { thread_id: 'ticket-1042' } })).panoptes).toEqualTypeOf<string | null>();

  expectTypeOf(isGraphMonitor(monitor)).toBeBoolean();
  expectTypeOf(isGraphMonitor(createMonitor({ workflow }))).toBeBoolean();
  const config: LangGraphRunnableConfig = { configurable: { thread_id: 'ticket-1042' } };
  const sessionId = graphSessionId(undefined, state.messages, config, monitor);
  expectTypeOf(sessionId).toEqualTypeOf<string | undefined>();
  const report = sessionId === undefined ? undefined : await monitor.report(sessionId);
  expectTypeOf(report?.trace).toEqualTypeOf<string[] | undefined>();
}
