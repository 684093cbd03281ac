import { LANGCHAIN_DEMO, LANGCHAIN_DEMO_REPORT } from './langchain-demo.js';

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

${LANGCHAIN_DEMO}
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const agent = createAgent({ model: hastyModel(), tools, middleware: [await panoptes({ tools, userOf: () => 'cus_1' })] });
  const { messages } = await agent.invoke({ messages: [{ role: 'user', content: 'Refund order A1, please.' }] }, { configurable: { thread_id: 'demo' } });
${LANGCHAIN_DEMO_REPORT}}
`;
