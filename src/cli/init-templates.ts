import { join } from 'node:path';
import { AI_SDK_AGENT } from './init/ai-sdk.js';
import { LANGCHAIN_AGENT } from './init/langchain.js';
import { LANGGRAPH_AGENT } from './init/langgraph.js';
import { PROXY_CONFIG } from './init/proxy.js';

/**
 * The files `panoptes init` writes: a small order-support workflow, its rules and two scenarios that pass, so a team
 * starts from something that runs and edits it towards its own procedure.
 */

export const INIT_HOSTS = ['langchain', 'langgraph', 'ai-sdk', 'proxy'] as const;
export type InitHost = (typeof INIT_HOSTS)[number];

export const WORKFLOW_TEMPLATE = `# yaml-language-server: $schema=../node_modules/panoptes/workflow.schema.json
# The procedure your agent follows, as states, the moves between them and rules over the order of states.
# Check it with \`npx panoptes validate panoptes/workflow.yaml\`; test it with \`npx panoptes test\`.
name: order-support
version: "0.1"
description: Greet, look the order up, refund it only after that, and close.

states:
  - name: greeting
    initial: true
    classification:
      patterns: ["\\\\b(hello|hi|welcome)\\\\b", "how can i help"]

  - name: lookup_order
    description: The agent reads the order (a tool call classifies the step).
    classification:
      tool_calls: [lookup_order]

  - name: refund
    description: The agent changes the order.
    classification:
      tool_calls: [refund_order]

  - name: done
    terminal: true
    classification:
      patterns: ["anything else", "have a (great|nice) day"]

transitions:
  - { from: greeting, to: lookup_order }
  - { from: lookup_order, to: refund }
  - { from: lookup_order, to: done }
  - { from: refund, to: done }

constraints:
  # source: "Never refund an order you have not looked up."
  - name: lookup_before_refund
    type: precedence
    trigger: refund
    target: lookup_order
    severity: critical
    intervention: look_up_first

  # source: "Every conversation ends by asking whether there is anything else."
  - name: close_the_conversation
    type: eventually
    target: done
    severity: warning

interventions:
  look_up_first: "Look the order up with lookup_order before you refund it."
`;

export const RULES_TEMPLATE = `# Which tool calls are allowed, proved from facts the data tools return. Check with \`npx panoptes rules check\`.
context current_user "the customer's id, once they are logged in"

data order_owner(O, U) from lookup_order(order_id: O) -> U = $.customer_id ttl 60s

askable confirms_refund(O) "Refund order {O} to the original payment method? (yes/no)"

# "Refund only the customer's own orders, and only after they confirm."
guard refund_order(order_id: O) :- order_owner(O, current_user), confirms_refund(O).
`;

const CONVERSATION = `conversation:
  - { role: user, content: "Hi, I'd like a refund for order A1." }
  - { role: assistant, content: "Hello! How can I help? Let me look the order up." }
  - role: assistant
    content: null
    tool_calls: [{ id: c1, type: function, function: { name: lookup_order, arguments: '{"order_id":"A1"}' } }]
  - { role: tool, tool_call_id: c1, content: '{"customer_id":"cus_1","total":40}' }
  - role: assistant
    content: null
    tool_calls: [{ id: c2, type: function, function: { name: refund_order, arguments: '{"order_id":"A1"}' } }]
  - { role: tool, tool_call_id: c2, content: "refunded" }
  - { role: assistant, content: "Your refund is on its way. Is there anything else?" }`;

export const SCENARIO_CONFIRMED = `# A refund the customer confirmed: the rules allow it, every constraint holds.
name: confirmed refund goes through
workflow: ../workflow.yaml
rules:
  file: ../policy.rules
  context: { current_user: cus_1 }
  confirm: ['confirms_refund("A1")']
  fixtures:
    lookup_order: { args: { order_id: A1 }, result: { customer_id: cus_1, total: 40 } }
${CONVERSATION}
expect:
  refused: []
  violations: []
  final_state: done
`;

export const SCENARIO_UNCONFIRMED = `# The same refund without the customer's yes: the rules refuse it before it runs.
name: unconfirmed refund is refused
workflow: ../workflow.yaml
rules:
  file: ../policy.rules
  context: { current_user: cus_1 }
  fixtures:
    lookup_order: { args: { order_id: A1 }, result: { customer_id: cus_1, total: 40 } }
${CONVERSATION}
expect:
  refused: [refund_order]
  trace: [greeting, lookup_order, done]
`;

/** The file each host gets beside the workflow: wiring that runs as it is written (`node panoptes/agent.mjs`), or the proxy's configuration. */
export function hostFile(host: InitHost, folder: string): [path: string, text: string] {
  switch (host) {
    case 'langchain':
      return [join(folder, 'agent.mjs'), LANGCHAIN_AGENT];
    case 'langgraph':
      return [join(folder, 'agent.mjs'), LANGGRAPH_AGENT];
    case 'ai-sdk':
      return [join(folder, 'agent.mjs'), AI_SDK_AGENT];
    case 'proxy':
      return [join(folder, 'panoptes.yaml'), PROXY_CONFIG];
  }
}

/** What `init` prints after the files: how to see the wiring refuse the forbidden call, and how to use it. */
export function hostLines(host: InitHost, folder: string): string[] {
  if (host === 'proxy') {
    return [
      `Start the proxy (it checks every chat completion against ${folder}/workflow.yaml):`,
      `  npx panoptes serve --config ${folder}/panoptes.yaml`,
      `Point your agent's OpenAI client at it, and name each conversation:`,
      `  base_url = "http://127.0.0.1:4100/v1"; header x-panoptes-session-id: <conversation id>`,
      `(${folder}/policy.rules reads the logged-in customer, a context the proxy cannot set, so the proxy enforces the workflow alone; \`panoptes test\` and the in-process hosts check the rules.)`,
    ];
  }
  const usage: Record<Exclude<InitHost, 'proxy'>, string[]> = {
    langchain: [`import { panoptes } from './${folder}/agent.mjs';`, `const agent = createAgent({ model, tools, middleware: [await panoptes({ tools, userOf: (threadId) => userId })] });`],
    langgraph: [`import { panoptes } from './${folder}/agent.mjs';`, `const { monitor, toolNode } = await panoptes({ tools, userOf: (threadId) => userId });`, `graph.addNode('agent', wrapModelNode(callModel, { monitor })).addNode('tools', toolNode);`],
    'ai-sdk': [`import { panoptes } from './${folder}/agent.mjs';`, `const guard = await panoptes({ tools, userOf: (conversationId) => userId });`, `await generateText({ model: guard.model(model), tools: guard.tools, providerOptions: { panoptes: { sessionId: conversationId } }, ... });`],
  };
  return [`See it refuse a refund before it runs (offline, a scripted model):`, `  node ${folder}/agent.mjs`, `Then use it in your agent:`, ...usage[host].map((line) => `  ${line}`)];
}
