/**
 * `npm run demo`: a customer-support agent, monitored by Panoptes, offline.
 *
 * The agent is a scripted model in a plain agent loop (no framework), so every step of the monitor is visible:
 * it tries to refund an order before verifying the customer's identity, Panoptes refuses the tool call before it
 * runs, the next model call carries the workflow's guidance, and the agent follows the procedure from there.
 *
 * With `OTEL_EXPORTER_OTLP_ENDPOINT` set (`http://localhost:4318` for a local Jaeger or collector), the run is also
 * sent as one trace: a `support-demo.conversation` span with Panoptes' spans under it, the refusal among them with
 * its reason (docs/telemetry.md). It uses the OpenTelemetry SDK packages, development dependencies of this repository.
 */
import { fileURLToPath } from 'node:url';
import pc from 'picocolors';
import { createMonitor, loadWorkflow, type AssistantTurn, type ChatMessage, type SessionReport } from 'panoptes';

const WORKFLOW = fileURLToPath(new URL('./workflows/customer-support.yaml', import.meta.url));
const SESSION = 'demo-session';

/** The pretend back office: what the tools do when they are allowed to run. */
const tools: Record<string, (args: Record<string, unknown>) => string> = {
  verify_identity: (args) => `Identity verified for account ${String(args.account)}.`,
  issue_refund: (args) => `Refund of $${String(args.amount)} issued for order ${String(args.order)}.`,
};

/**
 * A model that behaves like a hasty agent: it goes straight for the refund, unless its system prompt carries
 * guidance telling it to verify identity first. It reads its input the way a real model would, so the change of
 * course is caused by what Panoptes injected, not by a fixed script.
 */
function scriptedModel(messages: ChatMessage[]): AssistantTurn {
  const system = messages.find((message) => message.role === 'system')?.content ?? '';
  const ran = (name: string) => messages.some((message) => message.role === 'tool' && message.name === name && !message.isError);
  const assistantTurns = messages.filter((message) => message.role === 'assistant').length;
  if (assistantTurns === 0) return { content: 'Hello! I can help with that refund.', toolCalls: [] };
  if (ran('issue_refund')) return { content: 'Your refund of $42 is on its way. Is there anything else I can help with?', toolCalls: [] };
  if (ran('verify_identity') || !system.includes('verify')) {
    return { content: '', toolCalls: [{ id: `call-${assistantTurns}`, name: 'issue_refund', args: { order: 'A-1042', amount: 42 } }] };
  }
  return { content: 'First I need to confirm who you are.', toolCalls: [{ id: `call-${assistantTurns}`, name: 'verify_identity', args: { account: 'ACC-77' } }] };
}

const say = {
  user: (text: string) => console.log(`${pc.bold('customer')}  ${text}`),
  agent: (text: string) => console.log(`${pc.bold(pc.cyan('agent'))}     ${text}`),
  tool: (text: string) => console.log(`${pc.dim('tool')}      ${pc.dim(text)}`),
  panoptes: (text: string) => console.log(`${pc.bold(pc.magenta('panoptes'))}  ${text}`),
};

/** The OpenTelemetry SDK, exporting over OTLP/HTTP, when `OTEL_EXPORTER_OTLP_ENDPOINT` asks for it. */
async function tracing(): Promise<{ run: <T>(fn: () => Promise<T>) => Promise<T>; done: () => Promise<void> } | undefined> {
  const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return undefined;
  const { context, trace } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] }); // reads the endpoint and headers from the environment
  trace.setGlobalTracerProvider(provider); // Panoptes uses the global tracer by default
  return {
    run: (fn) =>
      trace.getTracer('support-demo').startActiveSpan('support-demo.conversation', async (span) => {
        try {
          return await fn();
        } finally {
          span.end();
        }
      }),
    done: async () => {
      await provider.shutdown(); // flushes
      console.log(pc.dim(`trace sent to ${endpoint}`));
    },
  };
}

async function main() {
  const workflow = await loadWorkflow(WORKFLOW);
  const monitor = createMonitor({ workflow });
  monitor.on('state-change', ({ to }) => say.panoptes(pc.dim(`state -> ${to}`)));

  console.log(pc.bold(`\nPanoptes demo: workflow '${workflow.name}' (${workflow.stateNames.length} states, ${workflow.definition.constraints.length} constraints)\n`));
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are a support agent for an online shop. Be brief.' },
    { role: 'user', content: 'Hi, I want a refund for order A-1042, it arrived broken.' },
  ];
  say.user(messages[1]!.content);

  for (let call = 0; call < 8; call++) {
    const before = await monitor.beforeModel(SESSION, { messages });
    if (before.action === 'block') {
      say.panoptes(pc.red(`blocked the model call: ${before.intervention.text}`));
      break;
    }
    for (const intervention of before.interventions) say.panoptes(pc.yellow(`added to this call (${intervention.strategy}): "${intervention.text}"`));

    const turn = scriptedModel(before.messages);
    messages.push({ role: 'assistant', content: turn.content, toolCalls: turn.toolCalls });
    if (turn.content) say.agent(turn.content);
    await monitor.afterModel(SESSION, turn);

    for (const toolCall of turn.toolCalls) {
      say.agent(pc.dim(`calls ${toolCall.name}(${JSON.stringify(toolCall.args)})`));
      const decision = await monitor.beforeTool(SESSION, toolCall);
      if (decision.action === 'deny') {
        say.panoptes(pc.red(`refused ${toolCall.name} before it ran: ${decision.constraints.join(', ')}`));
        messages.push({ role: 'tool', toolCallId: toolCall.id, name: toolCall.name, content: decision.reason, isError: true });
        say.tool(decision.reason);
        continue;
      }
      const output = tools[toolCall.name]!(toolCall.args);
      messages.push({ role: 'tool', toolCallId: toolCall.id, name: toolCall.name, content: output });
      say.tool(output);
    }
    if (turn.toolCalls.length === 0 && call > 0) break; // the agent answered the customer: the conversation is over
  }

  printReport(await monitor.endSession(SESSION));
}

function printReport(report: SessionReport) {
  console.log(pc.bold('\nSession report'));
  console.log(`  timeline   ${report.trace.join(pc.dim(' -> '))}`);
  for (const refusal of report.refusals) console.log(`  ${pc.red('refused')}    ${refusal.state} (${refusal.constraints.join(', ')}): did not run`);
  for (const [constraint, verdict] of Object.entries(report.verdicts)) {
    const colour = verdict === 'satisfied' ? pc.green : verdict === 'violated' ? pc.red : pc.yellow;
    console.log(`  ${colour(verdict.padEnd(10))} ${constraint}`);
  }
  const violated = report.violations.length;
  console.log(violated === 0 ? pc.green('\nNo constraint was violated: the refusal and the guidance kept the agent on the procedure.\n') : pc.red(`\n${violated} violation(s).\n`));
}

const traced = await tracing();
if (traced) {
  await traced.run(main);
  await traced.done();
} else {
  await main();
}
