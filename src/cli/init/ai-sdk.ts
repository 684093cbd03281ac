/** The AI SDK wiring `panoptes init --host ai-sdk` writes, as a file that runs offline. */
export const AI_SDK_AGENT = `// Panoptes for a Vercel AI SDK agent, written by \`panoptes init --host ai-sdk\`.
//
// Run it:   node panoptes/agent.mjs
// It runs offline: a scripted model (the AI SDK's own MockLanguageModelV3) goes straight for the refund, and
// Panoptes refuses the call before the tool runs, first because the order was not looked up (workflow.yaml), then
// because the customer has not confirmed (policy.rules).
//
// In your app, wrap your model and tools once, and name each conversation:
//   const guard = await panoptes({ tools, userOf: (conversationId) => ... });
//   await generateText({ model: guard.model(yourModel), tools: guard.tools, stopWhen: stepCountIs(8), prompt,
//     providerOptions: { panoptes: { sessionId: conversationId } } });
import { fileURLToPath } from 'node:url';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createFactStore, createMonitor, createSentinelSessions, loadRulebase, loadWorkflow } from 'panoptes';
import { guardTools, panoptesMiddleware } from 'panoptes/ai-sdk';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));

/**
 * The model wrapper (guidance in, responses classified) and the guarded tools (every call checked before it runs).
 * \`tools\` are the agent's own tools: the rules read the data tools among them (lookup_order) themselves.
 */
export async function panoptes({ tools, userOf }) {
  const monitor = createMonitor({ workflow: await loadWorkflow(here('./workflow.yaml')) });
  const sentinel = createSentinelSessions({
    rulebase: await loadRulebase(here('./policy.rules')),
    tools,
    // Each conversation has its own facts: who is logged in, what they confirmed.
    facts: (conversationId) => createFactStore({ seed: { context: { current_user: userOf(conversationId) } } }),
  });
  return {
    model: (model) => wrapLanguageModel({ model, middleware: panoptesMiddleware({ monitor }) }),
    tools: guardTools(tools, { monitor, sentinel }),
  };
}

// ---- The offline demo: replace the tools and the model with yours. ----
const ran = [];
const orderId = jsonSchema({ type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] });
const tools = {
  lookup_order: tool({ description: 'Look an order up by its id.', inputSchema: orderId, execute: async ({ order_id }) => (ran.push('lookup_order'), { order_id, customer_id: 'cus_1', total: 40 }) }),
  refund_order: tool({ description: 'Refund an order to the original payment method.', inputSchema: orderId, execute: async ({ order_id }) => (ran.push('refund_order'), \`Order \${order_id} refunded.\`) }),
};

/** A hasty model: it refunds first, looks the order up when told to, and asks the customer when the rules say so. */
function hastyModel() {
  const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 0, text: 0, reasoning: undefined } };
  const answer = (content, unified) => ({ content, finishReason: { unified, raw: undefined }, usage, warnings: [] });
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const last = prompt.at(-1);
      const result = last.role === 'tool' ? last.content.at(-1) : undefined;
      const refusal = result?.output.type === 'error-text' ? result.output.value : '';
      const call = (toolName) => answer([{ type: 'tool-call', toolCallId: \`call_\${prompt.length}\`, toolName, input: JSON.stringify({ order_id: 'A1' }) }], 'tool-calls');
      if (refusal.includes('lookup_order')) return call('lookup_order');
      if (refusal) return answer([{ type: 'text', text: 'Refund order A1 to the original payment method? (yes/no)' }], 'stop');
      return call('refund_order');
    },
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const guard = await panoptes({ tools, userOf: () => 'cus_1' });
  const result = await generateText({ model: guard.model(hastyModel()), tools: guard.tools, stopWhen: stepCountIs(6), prompt: 'Refund order A1, please.', providerOptions: { panoptes: { sessionId: 'demo' } } });
  for (const step of result.steps) {
    for (const part of step.content) {
      // A refused call is a tool error (the UI shows it as failed; the model reads the reason).
      if (part.type === 'tool-error') console.log(\`refused  \${part.toolName}: \${part.error instanceof Error ? part.error.message : String(part.error)}\`);
      else if (part.type === 'tool-result') console.log(\`ran      \${part.toolName}\`);
      else if (part.type === 'text' && part.text) console.log(\`agent    \${part.text}\`);
    }
  }
  console.log(\`\\nTools that ran: \${ran.join(', ') || 'none'}. refund_order never ran without a lookup and a yes.\`);
}
`;
