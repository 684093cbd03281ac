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

// ---- The offline demo: replace the tools and the model with yours. ----
const ran = [];
const tools = [
  tool(async ({ order_id }) => (ran.push('lookup_order'), JSON.stringify({ order_id, customer_id: 'cus_1', total: 40 })), {
    name: 'lookup_order',
    description: 'Look an order up by its id.',
    schema: z.object({ order_id: z.string() }),
  }),
  tool(async ({ order_id }) => (ran.push('refund_order'), \`Order \${order_id} refunded.\`), {
    name: 'refund_order',
    description: 'Refund an order to the original payment method.',
    schema: z.object({ order_id: z.string() }),
  }),
];

/** A hasty model: it refunds first, looks the order up when told to, and asks the customer when the rules say so. */
function hastyModel() {
  const model = fakeModel();
  for (let turn = 0; turn < 6; turn++) {
    model.respond((messages) => {
      const last = messages.at(-1);
      const refusal = ToolMessage.isInstance(last) && last.status === 'error' ? String(last.content) : '';
      const call = (name) => new AIMessage({ content: '', tool_calls: [{ id: \`call_\${turn}\`, name, args: { order_id: 'A1' }, type: 'tool_call' }] });
      if (refusal.includes('lookup_order')) return call('lookup_order');
      if (refusal) return new AIMessage('Refund order A1 to the original payment method? (yes/no)');
      return call('refund_order');
    });
  }
  return model;
}

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
  for (const message of messages.slice(1)) {
    if (ToolMessage.isInstance(message)) console.log(message.status === 'error' ? \`refused  \${message.name}: \${message.content}\` : \`ran      \${message.name}\`);
    else if (AIMessage.isInstance(message) && message.content) console.log(\`agent    \${message.content}\`);
  }
  console.log(\`\\nTools that ran: \${ran.join(', ') || 'none'}. refund_order never ran without a lookup and a yes.\`);
}
`;
