/**
 * A Vercel AI SDK agent kept on its workflow by Panoptes: `npx tsx examples/ai-sdk-agent.ts`.
 *
 * Offline by default: the model is a scripted `MockLanguageModelV3` that behaves like a hasty agent (it goes
 * straight for the refund) and reads its prompt like a real model would. With `OPENAI_API_KEY` set, the same
 * agent runs on `gpt-4o-mini`. Either way the story is the same three AI SDK pieces:
 *   - `panoptesMiddleware` on the model: guidance goes into the next call's prompt, responses are classified;
 *   - `guardTools` on the tools: a call that breaks the workflow is refused before it runs;
 *   - `panoptesStopCondition` in `stopWhen`: the loop ends cleanly if the monitor would block the next call.
 * It imports `panoptes` and `panoptes/ai-sdk` as your project would (this repository's tsconfig `paths` point them at the sources).
 */
import { openai } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel, type StepResult, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { fileURLToPath } from 'node:url';
import pc from 'picocolors';
import { guardTools, panoptesMiddleware, panoptesStopCondition, sessionIdFromMetadata, ToolCallRefusedError } from 'panoptes/ai-sdk';
import { createMonitor, loadWorkflow, type RenderedIntervention } from 'panoptes';

const WORKFLOW = fileURLToPath(new URL('./workflows/customer-support.yaml', import.meta.url));
const SYSTEM = 'You are the support agent of an online shop. Use the tools to help the customer. Be brief.';
const CUSTOMER = 'Hi, my order 1042 arrived broken. Please refund it, my email is mia@example.com.';

const say = {
  customer: (text: string) => console.log(`${pc.bold('customer')}  ${text}`),
  agent: (text: string) => console.log(`${pc.bold(pc.cyan('agent'))}     ${text}`),
  tool: (text: string) => console.log(`${pc.dim('tool')}      ${pc.dim(text)}`),
  panoptes: (text: string) => console.log(`${pc.bold(pc.magenta('panoptes'))}  ${text}`),
};

const orderInput = jsonSchema<{ orderId: string; email?: string }>({
  type: 'object',
  properties: { orderId: { type: 'string', description: 'The order number' }, email: { type: 'string', description: "The customer's email" } },
  required: ['orderId'],
});

/** The shop's back office. Nothing here checks the procedure: that is Panoptes' job. */
const tools = {
  verify_identity: tool({
    description: "Verify the customer's identity from their order number and email.",
    inputSchema: orderInput,
    execute: async ({ orderId, email }) => ({ verified: true, orderId, customer: email ?? 'on file' }),
  }),
  issue_refund: tool({
    description: 'Refund an order in full.',
    inputSchema: orderInput,
    execute: async ({ orderId }) => ({ refunded: true, orderId, amount: '$49.90' }),
  }),
};

/**
 * A hasty agent: it refunds at once, unless its prompt tells it to verify first (the guidance Panoptes adds) or a
 * refusal says so. It decides from what it reads, so the change of course comes from what Panoptes put there.
 */
function scriptedModel(): MockLanguageModelV3 {
  const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 0, text: 0, reasoning: undefined } };
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const read = JSON.stringify(prompt);
      const done = (name: string) => prompt.some((message) => message.role === 'tool' && message.content.some((part) => part.type === 'tool-result' && part.toolName === name && part.output.type === 'json'));
      const call = (toolName: string) => ({
        content: [{ type: 'tool-call' as const, toolCallId: `call-${prompt.length}`, toolName, input: JSON.stringify({ orderId: '1042', email: 'mia@example.com' }) }],
        finishReason: { unified: 'tool-calls' as const, raw: undefined },
        usage,
        warnings: [],
      });
      if (done('issue_refund')) {
        return { content: [{ type: 'text', text: 'Your refund of $49.90 for order 1042 is on its way. Is there anything else I can help with?' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
      }
      if (done('verify_identity')) return call('issue_refund');
      return read.includes('verify_identity first') || read.includes('refused') ? call('verify_identity') : call('issue_refund');
    },
  });
}

async function main() {
  const online = Boolean(process.env.OPENAI_API_KEY);
  const workflow = await loadWorkflow(WORKFLOW);
  const monitor = createMonitor({ workflow });
  const model = wrapLanguageModel({ model: online ? openai('gpt-4o-mini') : scriptedModel(), middleware: panoptesMiddleware({ monitor }) });

  // Interventions are applied when the next call starts; keep them to print with that call's step.
  const applied: RenderedIntervention[] = [];
  monitor.on('intervention', ({ intervention }) => void applied.push(intervention));

  console.log(pc.bold(`\nPanoptes + Vercel AI SDK: workflow '${workflow.name}', ${online ? 'gpt-4o-mini' : 'a scripted model (set OPENAI_API_KEY for a real one)'}\n`));
  say.customer(CUSTOMER);

  let step = 0;
  const result = await generateText({
    model,
    system: SYSTEM,
    prompt: CUSTOMER,
    // No session ids to pass around: the middleware names the session after the conversation's opening, and the
    // guarded tools check each call in the session of the response that asked for it.
    tools: guardTools(tools, { monitor }),
    stopWhen: [stepCountIs(8), panoptesStopCondition({ monitor })],
    onStepFinish: async (stepResult) => {
      console.log(pc.dim(`\n-- model call ${++step} --`));
      for (const intervention of applied.splice(0)) say.panoptes(`added ${describe(intervention)} to this call: ${pc.italic(intervention.text.replace(/\s+/g, ' ').trim())}`);
      await tellStep(stepResult);
      const session = await monitor.session(sessionIdFromMetadata(stepResult.providerMetadata)!);
      say.panoptes(pc.dim(`workflow state: ${session?.workflow.state}`));
    },
  });

  const report = await monitor.endSession(sessionIdFromMetadata(result.providerMetadata)!);
  console.log(pc.bold('\nSession report'));
  console.log(`  trace       ${report.trace.join(' -> ')}`);
  console.log(`  verdicts    ${Object.entries(report.verdicts).map(([name, verdict]) => `${name}: ${verdict === 'satisfied' ? pc.green(verdict) : pc.red(verdict)}`).join(', ')}`);
  console.log(`  refusals    ${report.refusals.length === 0 ? 'none' : report.refusals.map((refusal) => `${refusal.state} (${refusal.constraints.join(', ')})`).join(', ')}`);
  console.log(`  violations  ${report.violations.length === 0 ? 'none' : report.violations.map((violation) => violation.constraint).join(', ')}`);
  console.log(
    report.refusals.length > 0
      ? `\nThe agent tried to refund before verifying the customer; Panoptes refused the call before it ran, the next call carried the workflow's guidance, and the agent finished in ${result.steps.length} calls.\n`
      : `\nThe agent followed the procedure on its own; Panoptes changed nothing.\n`,
  );
}

async function tellStep(stepResult: StepResult<ToolSet>) {
  if (stepResult.text) say.agent(stepResult.text);
  for (const call of stepResult.toolCalls) say.agent(pc.dim(`calls ${call.toolName}(${JSON.stringify(call.input)})`));
  for (const part of stepResult.content) {
    if (part.type === 'tool-result') say.tool(`${part.toolName} -> ${JSON.stringify(part.output)}`);
    else if (part.type === 'tool-error' && ToolCallRefusedError.isInstance(part.error)) say.panoptes(pc.yellow(`refused ${part.toolName} before it ran; the model reads: "${part.error.message}"`));
  }
}

const describe = (intervention: RenderedIntervention) =>
  ({
    'system-prompt-append': 'guidance in the system prompt',
    'context-reminder': 'a reminder',
    'user-message-inject': 'a system note',
    'hard-block': 'a block',
  } as Record<string, string>)[intervention.strategy] ?? intervention.strategy;

await main();
