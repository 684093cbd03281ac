/** The LangChain `createAgent` wiring `panoptes init --host langchain` writes, as a file that runs offline. */
export const LANGCHAIN_AGENT = `// Panoptes for a LangChain createAgent agent, written by \`panoptes init --host langchain\`.
//
// Run it:   node panoptes/agent.mjs
// It runs offline: a scripted model (LangChain's own fakeModel) goes straight for the refund, and Panoptes refuses
// the call before the tool runs, first because the order was not looked up (workflow.yaml), then because the
// customer has not confirmed (policy.rules).
//
// In your app, pass your model and tools, and say who is logged in for each thread:
//   const agent = createAgent({ model, tools, middleware: [await panoptes({ tools, userOf: (threadId) => ... })] });
//   await agent.invoke({ messages }, { configurable: { thread_id } });
import { fileURLToPath } from 'node:url';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { createFactStore, createMonitor, createSentinelSessions, loadRulebase, loadWorkflow } from 'panoptes';
import { panoptesMiddleware } from 'panoptes/langchain';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));

/**
 * The middleware that keeps the agent on its workflow and proves every action against the rules before it runs.
 * \`tools\` are the agent's own tools: the rules read the data tools among them (lookup_order) themselves.
 */
export async function panoptes({ tools, userOf }) {
  const monitor = createMonitor({ workflow: await loadWorkflow(here('./workflow.yaml')) });
  const sentinel = createSentinelSessions({
    rulebase: await loadRulebase(here('./policy.rules')),
    tools,
    // Each conversation has its own facts: who is logged in, what they confirmed.
    facts: (threadId) => createFactStore({ seed: { context: { current_user: userOf(threadId) } } }),
  });
  return panoptesMiddleware({ monitor, sentinel });
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
      if (ToolMessage.isInstance(last)) return call('refund_order');
      return call('refund_order');
    });
  }
  return model;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const agent = createAgent({ model: hastyModel(), tools, middleware: [await panoptes({ tools, userOf: () => 'cus_1' })] });
  const { messages } = await agent.invoke({ messages: [{ role: 'user', content: 'Refund order A1, please.' }] }, { configurable: { thread_id: 'demo' } });
  for (const message of messages.slice(1)) {
    if (ToolMessage.isInstance(message)) console.log(message.status === 'error' ? \`refused  \${message.name}: \${message.content}\` : \`ran      \${message.name}\`);
    else if (AIMessage.isInstance(message) && message.content) console.log(\`agent    \${message.content}\`);
  }
  console.log(\`\\nTools that ran: \${ran.join(', ') || 'none'}. refund_order never ran without a lookup and a yes.\`);
}
`;
