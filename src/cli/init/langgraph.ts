import { LANGCHAIN_DEMO, LANGCHAIN_DEMO_REPORT } from './langchain-demo.js';

/** The LangGraph wiring `panoptes init --host langgraph` writes, as a file that runs offline. */
export const LANGGRAPH_AGENT = `// Panoptes for a hand-built LangGraph graph, written by \`panoptes init --host langgraph\`.
//
// Run it:   node panoptes/agent.mjs
// It runs offline: a scripted model (LangChain's own fakeModel) goes straight for the refund, and Panoptes refuses
// the call before the tool runs, first because the order was not looked up (workflow.yaml), then because the
// customer has not confirmed (policy.rules).
//
// In your graph: wrap the model node and use the guarded tool node, with a state that includes PanoptesAnnotation:
//   const { monitor, toolNode } = await panoptes({ tools, userOf: (threadId) => ... });
//   graph.addNode('agent', wrapModelNode(callModel, { monitor })).addNode('tools', toolNode);
import { fileURLToPath } from 'node:url';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { Annotation, END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { toolsCondition } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { createFactStore, createSentinelSessions, loadRulebase, loadWorkflow } from 'panoptes';
import { createGraphMonitor, GuardedToolNode, PanoptesAnnotation, wrapModelNode } from 'panoptes/langgraph';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));

/**
 * The graph monitor (for \`wrapModelNode\`) and a tool node that checks every call against the workflow and the
 * rules before it runs. \`tools\` are the graph's own tools: the rules read the data tools among them (lookup_order).
 */
export async function panoptes({ tools, userOf }) {
  const monitor = createGraphMonitor({ workflow: await loadWorkflow(here('./workflow.yaml')) });
  const sentinel = createSentinelSessions({
    rulebase: await loadRulebase(here('./policy.rules')),
    tools,
    // Each thread has its own facts: who is logged in, what they confirmed.
    facts: (threadId) => createFactStore({ seed: { context: { current_user: userOf(threadId) } } }),
  });
  return { monitor, toolNode: new GuardedToolNode(tools, { monitor, sentinel }) };
}

${LANGCHAIN_DEMO}
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { monitor, toolNode } = await panoptes({ tools, userOf: () => 'cus_1' });
  const model = hastyModel();
  const State = Annotation.Root({ ...MessagesAnnotation.spec, ...PanoptesAnnotation.spec });
  const graph = new StateGraph(State)
    .addNode('agent', wrapModelNode(async (state) => ({ messages: [await model.invoke(state.messages)] }), { monitor }))
    .addNode('tools', toolNode)
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition, ['tools', END])
    .addEdge('tools', 'agent')
    .compile({ checkpointer: new MemorySaver() });
  const { messages } = await graph.invoke({ messages: [{ role: 'user', content: 'Refund order A1, please.' }] }, { configurable: { thread_id: 'demo' } });
${LANGCHAIN_DEMO_REPORT}}
`;
