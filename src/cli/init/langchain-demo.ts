/**
 * What the LangChain and LangGraph wiring files share, as text: the offline demo's tools and its hasty scripted model
 * (LangChain's own \`fakeModel()\`). Each written file stays whole on its own; only this source is shared.
 */
export const LANGCHAIN_DEMO = `// ---- The offline demo: replace the tools and the model with yours. ----
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
`;

/** The lines that print a run's messages, for the LangChain and LangGraph demos. */
export const LANGCHAIN_DEMO_REPORT = `  for (const message of messages.slice(1)) {
    if (ToolMessage.isInstance(message)) console.log(message.status === 'error' ? \`refused  \${message.name}: \${message.content}\` : \`ran      \${message.name}\`);
    else if (AIMessage.isInstance(message) && message.content) console.log(\`agent    \${message.content}\`);
  }
  console.log(\`\\nTools that ran: \${ran.join(', ') || 'none'}. refund_order never ran without a lookup and a yes.\`);
`;
