/**
 * A LangChain `createAgent` agent kept on its workflow by Panoptes: `npx tsx examples/langchain-agent.ts`.
 *
 * Offline by default: the model is a scripted `fakeModel()` that behaves like a hasty agent (it goes straight for
 * the refund) and decides from what it reads, as a real model would. With `OPENAI_API_KEY` set, the same agent runs
 * on `gpt-4o-mini`. One line adds Panoptes: `middleware: [panoptesMiddleware({ monitor })]`, which
 *   - refuses a tool call that breaks the workflow before it runs (the model reads why, as an error tool result),
 *   - puts the workflow's guidance into the next model call only (the thread's history never stores it),
 *   - classifies every response, so the session's report shows the path the agent took.
 * It imports `panoptes` and `panoptes/langchain` as your project would (this repository's tsconfig `paths` point them at the sources).
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent } from 'langchain';
import { fileURLToPath } from 'node:url';
import pc from 'picocolors';
import { z } from 'zod';
import { panoptesMiddleware, textOf } from 'panoptes/langchain';
import { createMonitor, loadWorkflow, type RenderedIntervention, type SessionReport } from 'panoptes';

const WORKFLOW = fileURLToPath(new URL('./workflows/customer-support.yaml', import.meta.url));
const SYSTEM = 'You are the support agent of an online shop. Use the tools to help the customer. Be brief.';
const CUSTOMER = 'Hi, my order 1042 arrived broken. Please refund it, my email is mia@example.com.';
const THREAD = 'ticket-1042';

const say = {
  customer: (text: string) => console.log(`${pc.bold('customer')}  ${text}`),
  agent: (text: string) => console.log(`${pc.bold(pc.cyan('agent'))}     ${text}`),
  tool: (text: string) => console.log(`${pc.dim('tool')}      ${pc.dim(text)}`),
  panoptes: (text: string) => console.log(`${pc.bold(pc.magenta('panoptes'))}  ${text}`),
};

const order = z.object({ orderId: z.string().describe('The order number'), email: z.string().optional().describe("The customer's email") });

/** The shop's back office. Nothing here checks the procedure: that is Panoptes' job. */
const tools = [
  tool(async ({ orderId, email }) => JSON.stringify({ verified: true, orderId, customer: email ?? 'on file' }), {
    name: 'verify_identity',
    description: "Verify the customer's identity from their order number and email.",
    schema: order,
  }),
  tool(async ({ orderId }) => JSON.stringify({ refunded: true, orderId, amount: '$49.90' }), { name: 'issue_refund', description: 'Refund an order in full.', schema: order }),
];

/**
 * A hasty agent: it refunds at once, unless what it reads (the guidance Panoptes adds, or a refusal) tells it to
 * verify first. The change of course comes from what Panoptes put in front of it.
 */
function scriptedModel() {
  const decide = (messages: BaseMessage[]): AIMessage => {
    const done = (name: string) => messages.some((message) => ToolMessage.isInstance(message) && message.name === name && message.status !== 'error');
    const read = messages.map((message) => textOf(message.content)).join('\n');
    const call = (name: string) => new AIMessage({ content: '', tool_calls: [{ id: `call-${messages.length}`, name, args: { orderId: '1042', email: 'mia@example.com' }, type: 'tool_call' }] });
    if (done('issue_refund')) return new AIMessage('Your refund of $49.90 for order 1042 is on its way. Is there anything else I can help with?');
    if (done('verify_identity')) return call('issue_refund');
    return read.includes('verify_identity first') || read.includes('refused') ? call('verify_identity') : call('issue_refund');
  };
  const model = fakeModel();
  for (let call = 0; call < 8; call++) model.respond(decide);
  return model;
}

async function main() {
  const online = Boolean(process.env.OPENAI_API_KEY);
  const workflow = await loadWorkflow(WORKFLOW);
  const monitor = createMonitor({ workflow });
  let report: SessionReport | undefined;
  const agent = createAgent({
    model: online ? new ChatOpenAI({ model: 'gpt-4o-mini' }) : scriptedModel(),
    tools,
    systemPrompt: SYSTEM,
    middleware: [panoptesMiddleware({ monitor, closeSession: true, onReport: (final) => void (report = final) })],
  });

  // Interventions are applied as a model call starts; keep them to print with that call's answer.
  const applied: RenderedIntervention[] = [];
  monitor.on('intervention', ({ intervention }) => void applied.push(intervention));

  console.log(pc.bold(`\nPanoptes + LangChain createAgent: workflow '${workflow.name}', ${online ? 'gpt-4o-mini' : 'a scripted model (set OPENAI_API_KEY for a real one)'}\n`));
  say.customer(CUSTOMER);
  let calls = 0;
  const stream = await agent.stream({ messages: [new HumanMessage(CUSTOMER)] }, { configurable: { thread_id: THREAD }, streamMode: 'updates', recursionLimit: 30 });
  for await (const update of stream) {
    for (const [node, change] of Object.entries(update as Record<string, { messages?: BaseMessage[] } | undefined>)) {
      for (const message of change?.messages ?? []) {
        if (node === 'model_request') {
          console.log(pc.dim(`\n-- model call ${++calls} --`));
          for (const intervention of applied.splice(0)) say.panoptes(`added ${describe(intervention)} to this call only: ${pc.italic(intervention.text.replace(/\s+/g, ' ').trim())}`);
        }
        tell(message);
      }
    }
  }
  printReport(report!, calls);
}

function tell(message: BaseMessage) {
  if (AIMessage.isInstance(message)) {
    if (textOf(message.content)) say.agent(textOf(message.content));
    for (const call of message.tool_calls ?? []) say.agent(pc.dim(`calls ${call.name}(${JSON.stringify(call.args)})`));
  } else if (ToolMessage.isInstance(message)) {
    if (message.status === 'error') say.panoptes(pc.yellow(`refused ${message.name} before it ran; the model reads: "${textOf(message.content)}"`));
    else say.tool(`${message.name} -> ${textOf(message.content)}`);
  }
}

function printReport(report: SessionReport, calls: number) {
  console.log(pc.bold('\nSession report'));
  console.log(`  trace       ${report.trace.join(' -> ')}`);
  console.log(`  verdicts    ${Object.entries(report.verdicts).map(([name, verdict]) => `${name}: ${verdict === 'satisfied' ? pc.green(verdict) : pc.red(verdict)}`).join(', ')}`);
  console.log(`  refusals    ${report.refusals.length === 0 ? 'none' : report.refusals.map((refusal) => `${refusal.state} (${refusal.constraints.join(', ')})`).join(', ')}`);
  console.log(`  violations  ${report.violations.length === 0 ? 'none' : report.violations.map((violation) => violation.constraint).join(', ')}`);
  console.log(
    report.refusals.length > 0
      ? `\nThe agent tried to refund before verifying the customer; Panoptes refused the call before it ran, the next call carried the workflow's guidance, and the agent finished in ${calls} model calls. The thread's history holds the refusal, never the guidance.\n`
      : '\nThe agent followed the procedure on its own; Panoptes changed nothing.\n',
  );
}

const describe = (intervention: RenderedIntervention) =>
  ({
    'system-prompt-append': 'guidance in the system prompt',
    'context-reminder': 'a reminder',
    'user-message-inject': 'a system note',
    'hard-block': 'a block',
  } as Record<string, string>)[intervention.strategy] ?? intervention.strategy;

await main();
