/**
 * A hand-built LangGraph graph kept on its workflow by Panoptes: `npx tsx examples/langgraph-graph.ts`.
 *
 * Offline by default: the model is a scripted `fakeModel()` that behaves like a hasty agent (it goes straight for
 * the refund) and decides from what it reads. With `OPENAI_API_KEY` set, the same graph runs on `gpt-4o-mini`.
 * The graph is the usual agent loop, with Panoptes in two places:
 *   - `wrapModelNode(callModel, { monitor })`: guidance goes into the next model call only; answers are classified;
 *   - `new GuardedToolNode(tools, { monitor })`: a call that breaks the workflow is refused before it runs.
 * The monitor's session lives in graph state (`PanoptesAnnotation`), so the checkpointer saves it with the messages.
 * The refund waits for a human's approval (`interrupt`); while it waits, the process "restarts": a new monitor and
 * a new graph resume the thread from the checkpoint and carry on with the same session.
 * It imports `panoptes` and `panoptes/langgraph` as your project would (this repository's tsconfig `paths` point them at the sources).
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { Annotation, Command, END, INTERRUPT, interrupt, isInterrupted, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { toolsCondition } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { fileURLToPath } from 'node:url';
import pc from 'picocolors';
import { z } from 'zod';
import { textOf } from 'panoptes/langchain';
import { createGraphMonitor, GuardedToolNode, PanoptesAnnotation, sessionFromState, wrapModelNode, type GraphMonitor } from 'panoptes/langgraph';
import { loadWorkflow, type RenderedIntervention, type Workflow } from 'panoptes';

const WORKFLOW = fileURLToPath(new URL('./workflows/customer-support.yaml', import.meta.url));
const SYSTEM = 'You are the support agent of an online shop. Use the tools to help the customer. Be brief.';
const CUSTOMER = 'Hi, my order 1042 arrived broken. Please refund it, my email is mia@example.com.';
const THREAD = { configurable: { thread_id: 'ticket-1042' }, recursionLimit: 30 };

const say = {
  customer: (text: string) => console.log(`${pc.bold('customer')}  ${text}`),
  agent: (text: string) => console.log(`${pc.bold(pc.cyan('agent'))}     ${text}`),
  tool: (text: string) => console.log(`${pc.dim('tool')}      ${pc.dim(text)}`),
  human: (text: string) => console.log(`${pc.bold(pc.yellow('human'))}     ${text}`),
  panoptes: (text: string) => console.log(`${pc.bold(pc.magenta('panoptes'))}  ${text}`),
};

const State = Annotation.Root({ ...MessagesAnnotation.spec, ...PanoptesAnnotation.spec });
const order = z.object({ orderId: z.string().describe('The order number'), email: z.string().optional().describe("The customer's email") });

/** The shop's back office: refunds wait for a human's approval. Nothing here checks the procedure. */
const tools = [
  tool(async ({ orderId, email }) => JSON.stringify({ verified: true, orderId, customer: email ?? 'on file' }), {
    name: 'verify_identity',
    description: "Verify the customer's identity from their order number and email.",
    schema: order,
  }),
  tool(
    async ({ orderId }) => {
      const decision = interrupt(`Approve a refund of $49.90 for order ${orderId}?`);
      return JSON.stringify(decision === 'approved' ? { refunded: true, orderId, amount: '$49.90' } : { refunded: false, reason: 'not approved' });
    },
    { name: 'issue_refund', description: 'Refund an order in full (a human approves it).', schema: order },
  ),
];

/** A hasty agent: it refunds at once, unless what it reads (guidance, a refusal) tells it to verify first. */
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

const online = Boolean(process.env.OPENAI_API_KEY);
const model = online ? new ChatOpenAI({ model: 'gpt-4o-mini' }).bindTools(tools) : scriptedModel();
const checkpointer = new MemorySaver(); // shared by both "processes", as a database would be

/** Builds the graph one process runs: its own monitor, the shared checkpointer. */
function buildGraph(workflow: Workflow) {
  const monitor = createGraphMonitor({ workflow });
  const guidance: RenderedIntervention[] = [];
  monitor.on('intervention', ({ intervention }) => void guidance.push(intervention));
  const callModel = async (state: typeof State.State) => ({ messages: [await model.invoke(state.messages)] });
  const graph = new StateGraph(State)
    .addNode('agent', wrapModelNode(callModel, { monitor, systemPrompt: SYSTEM }))
    .addNode('tools', new GuardedToolNode(tools, { monitor }))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition, ['tools', END])
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
  return { graph, monitor, guidance };
}

type Built = ReturnType<typeof buildGraph>;

async function run({ graph, guidance }: Built, input: Parameters<Built['graph']['stream']>[0]) {
  for await (const update of await graph.stream(input, { ...THREAD, streamMode: 'updates' })) {
    if (isInterrupted<string>(update)) for (const pending of update[INTERRUPT]) say.human(pc.dim(`(asked) ${pending.value}`));
    for (const [node, change] of Object.entries(update as Record<string, { messages?: BaseMessage[] } | undefined>)) {
      // The guidance went into the model call this update reports; the graph may run that call before the stream
      // hands us the step before it, so it is told here, in the story's order.
      if (node === 'agent') for (const intervention of guidance.splice(0)) say.panoptes(`added guidance to this call only: ${pc.italic(intervention.text.replace(/\s+/g, ' ').trim())}`);
      for (const message of change?.messages ?? []) tell(message);
    }
  }
}

async function main() {
  const workflow = await loadWorkflow(WORKFLOW);
  console.log(pc.bold(`\nPanoptes + LangGraph: workflow '${workflow.name}', ${online ? 'gpt-4o-mini' : 'a scripted model (set OPENAI_API_KEY for a real one)'}\n`));
  say.customer(CUSTOMER);
  await run(buildGraph(workflow), { messages: [new HumanMessage(CUSTOMER)] });

  const paused = buildGraph(workflow).graph;
  const saved = sessionFromState((await paused.getState(THREAD)).values);
  console.log(pc.dim('\n-- the process restarts while the refund waits for approval --'));
  say.panoptes(`the checkpoint holds the session: trace ${saved?.workflow.trace.join(' -> ')}, ${saved?.workflow.refusals.length ?? 0} refusal(s), waiting: ${saved?.pendingToolStates.map((pending) => pending.toolName).join(', ') || 'nothing'}`);

  const resumed = buildGraph(workflow); // a new monitor that has never seen this thread
  say.human('approved');
  await run(resumed, new Command({ resume: 'approved' }));
  await printReport(resumed.monitor);
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

async function printReport(monitor: GraphMonitor) {
  const report = await monitor.endSession('ticket-1042');
  console.log(pc.bold('\nSession report (from the monitor of the second process)'));
  console.log(`  trace       ${report.trace.join(' -> ')}`);
  console.log(`  verdicts    ${Object.entries(report.verdicts).map(([name, verdict]) => `${name}: ${verdict === 'satisfied' ? pc.green(verdict) : pc.red(verdict)}`).join(', ')}`);
  console.log(`  refusals    ${report.refusals.length === 0 ? 'none' : report.refusals.map((refusal) => `${refusal.state} (${refusal.constraints.join(', ')})`).join(', ')}`);
  console.log(
    report.refusals.length > 0
      ? "\nThe agent tried to refund before verifying the customer; Panoptes refused the call before it ran and guided the next call. The refusal was made by the first process and reported by the second: the session travelled in the graph's checkpoint.\n"
      : '\nThe agent followed the procedure on its own; Panoptes changed nothing.\n',
  );
}

await main();
