/**
 * `npm run example:airline`: an airline support agent that can only cancel what the airline's policy allows.
 *
 * A LangChain `createAgent` agent with the airline tools (written over the example database in `tools.ts`) and one
 * line of Panoptes: `middleware: [panoptesMiddleware({ sentinel })]`. The sentinel (`sentinel.ts`) proves every
 * tool call against the rulebase in `policy.rules` before it runs, fetching the facts it needs with the data tools
 * itself. The middleware also gives the agent the policy's tools (query_policy, set_context, record_confirmation)
 * and puts the facts known so far into its system prompt.
 *
 * The conversation: the customer asks to cancel a booking; the hasty agent tries at once and is refused, told it
 * must first know who the customer is; it asks, binds the user id and the reservation, asks the policy whether the
 * booking can be cancelled, tries again and is refused with the two questions the policy wants answered (the
 * reason, and an explicit yes); it asks them, records the answers, and the third attempt is proved and runs.
 *
 * Offline by default: the agent is a scripted `fakeModel()` that decides from what it reads (a refusal's text, the
 * customer's words), so its change of course comes from what the refusals told it. With `OPENAI_API_KEY` set, the
 * agent is `gpt-4o-mini`; the customer's lines stay scripted, so that run can read oddly if the model asks for
 * something else. It imports `panoptes` and `panoptes/langchain` as your project would (this repository's tsconfig `paths` point them at the sources).
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent } from 'langchain';
import pc from 'picocolors';
import { formatDerivation, formatFact, type CheckResult, type Sentinel } from 'panoptes';
import { panoptesMiddleware, textOf } from 'panoptes/langchain';
import { AIRLINE_RULES_PATH, createAirlineSession } from './sentinel.js';
import type { AirlineTool } from './tools.js';

const SYSTEM =
  'You are a customer-service agent of an airline. Use the tools to help the customer. Every action is checked against the ' +
  'airline policy before it runs: when a call is refused, do what the refusal says (ask the customer, set the context, record ' +
  "the customer's answers) and try again. Never answer a question for the customer. Be brief.";
const THREAD = 'airline-chat';
const RESERVATION = '1YVFB9';

/** What the customer says, turn by turn (scripted in both modes). */
const CUSTOMER = [
  `Hi, I booked a flight yesterday and I need to cancel it. The reservation is ${RESERVATION}.`,
  "Sure, it's emma_smith_9363. Can it still be cancelled?",
  'Change of plans. Yes, please cancel it.',
];

const say = {
  customer: (text: string) => console.log(`\n${pc.bold('customer')}  ${text}`),
  agent: (text: string) => console.log(`${pc.bold(pc.cyan('agent'))}     ${text.replace(/\n/g, '\n          ')}`),
  tool: (text: string) => console.log(`${pc.dim('tool')}      ${pc.dim(text)}`),
  panoptes: (text: string) => console.log(`${pc.bold(pc.magenta('panoptes'))}  ${text}`),
};

/** The airline tools as LangChain tools. `ran` records the calls that actually ran, so the story can tell a refused call from a failed one. */
function langchainTools(airlineTools: Record<string, AirlineTool>, ran: Set<string>) {
  return Object.values(airlineTools).map((airlineTool) =>
    tool(
      async (args: Record<string, unknown>, config) => {
        const id = config.toolCall?.id ?? '';
        ran.add(id);
        try {
          const output = airlineTool.execute(args);
          return typeof output === 'string' ? output : JSON.stringify(output);
        } catch (error) {
          // createAgent rethrows a thrown tool error; a failure the model should read is an error result.
          return new ToolMessage({ content: `Error: ${(error as Error).message}`, tool_call_id: id, name: airlineTool.name, status: 'error' });
        }
      },
      { name: airlineTool.name, description: airlineTool.description, schema: airlineTool.parameters },
    ),
  );
}

/**
 * A hasty agent that reads its request: it tries the cancellation first and asks questions later. What it asks,
 * binds and records comes from the text of the refusals it receives (the questions are the policy's own), and from
 * what the customer said.
 */
function scriptedModel() {
  let calls = 0;
  const toolCall = (name: string, args: Record<string, unknown>) => ({ id: `call-${++calls}`, name, args, type: 'tool_call' as const });
  const act = (...toolCalls: Array<ReturnType<typeof toolCall>>) => new AIMessage({ content: '', tool_calls: toolCalls });
  const cancel = () => act(toolCall('cancel_reservation', { reservation_id: RESERVATION }));

  const decide = (messages: BaseMessage[]): AIMessage => {
    const last = messages.at(-1)!;
    const customer = [...messages].reverse().find((message) => HumanMessage.isInstance(message));
    const customerText = customer ? textOf(customer.content) : '';
    if (HumanMessage.isInstance(last)) {
      const userId = customerText.match(/\b[a-z]+_[a-z]+_\d{4}\b/)?.[0];
      if (userId) return act(toolCall('set_context', { name: 'current_user', value: userId }), toolCall('set_context', { name: 'reservation_of_interest', value: RESERVATION }));
      if (/\byes\b/i.test(customerText)) {
        // The goals to record are the ones the last refusal named, with the customer's answer filled in.
        const refusal = [...messages].reverse().find((message) => ToolMessage.isInstance(message) && message.name === 'cancel_reservation' && message.status === 'error');
        const goals = [...textOf(refusal?.content).matchAll(/goal `([^`]+)`/g)].map((match) => match[1]!.replace('_Reason', /change of plan/i.test(customerText) ? 'change_of_plan' : 'other'));
        return act(...goals.map((goal) => toolCall('record_confirmation', { goal, answer: 'yes' })));
      }
      return cancel();
    }
    // The results of this agent's last calls.
    const results = messages.slice(messages.findLastIndex((message) => AIMessage.isInstance(message)) + 1).filter((message) => ToolMessage.isInstance(message));
    const cancelled = results.find((message) => message.name === 'cancel_reservation');
    if (cancelled?.status === 'error') {
      const text = textOf(cancelled.content);
      if (text.includes('set_context with name "current_user"')) return new AIMessage('I can help with that. First, what is your user id?');
      const questions = [...text.matchAll(/Ask the user: "([^"]+)"/g)].map((match) => match[1]!);
      const eligible = messages.some((message) => ToolMessage.isInstance(message) && message.name === 'query_policy' && textOf(message.content).startsWith('Yes'));
      const lead = eligible ? 'It can still be cancelled. Before I do it, the policy needs' : 'Before I can cancel it, the policy needs';
      return new AIMessage(`${lead} ${questions.length === 1 ? 'an answer' : `${questions.length} answers`} from you:\n${questions.map((question, index) => `${index + 1}. ${question}`).join('\n')}`);
    }
    if (cancelled) return new AIMessage(`Done: reservation ${RESERVATION} is cancelled. The refund goes to your original payment method within 5 to 7 business days.`);
    if (results.some((message) => message.name === 'set_context') && /still be cancelled/i.test(customerText)) {
      return act(toolCall('query_policy', { goal: 'cancellable(reservation_of_interest)' }));
    }
    return cancel(); // after the policy's answer, or the recorded confirmations: try again
  };
  const model = fakeModel();
  for (let turn = 0; turn < 20; turn++) model.respond(decide);
  return model;
}

/**
 * The sentinel, keeping the proofs of the cancellations it allows so the story can show them. The middleware calls
 * `check` before every guarded tool runs; nothing else changes.
 */
function keepingProofs(sentinel: Sentinel, proofs: CheckResult[]): Sentinel {
  return {
    ...sentinel,
    check: async (tool, args) => {
      const result = await sentinel.check(tool, args);
      if (result.allowed && tool === 'cancel_reservation') proofs.push(result);
      return result;
    },
  };
}

/** What the story keeps while it prints: which calls ran, the proofs, the attempts at the cancellation. */
interface Story {
  ran: Set<string>;
  proofs: CheckResult[];
  attempts: { refused: number; ran: number };
}

/** Prints one message of the agent's run: what the agent said or called, and what came back. */
function tell(message: BaseMessage, { ran, proofs, attempts }: Story) {
  if (AIMessage.isInstance(message)) {
    if (textOf(message.content)) say.agent(textOf(message.content));
    for (const call of message.tool_calls ?? []) say.agent(pc.dim(`calls ${call.name}(${JSON.stringify(call.args)})`));
    return;
  }
  if (!ToolMessage.isInstance(message)) return;
  const text = textOf(message.content);
  if (message.status === 'error' && !ran.has(message.tool_call_id) && !isPolicyTool(message.name)) {
    if (message.name === 'cancel_reservation') attempts.refused++;
    // The refusal's first part says what to do; the rest ("Also:") lists the policy's other cancellation rules that do not apply.
    const [todo, also] = text.split('\nAlso:\n');
    say.panoptes(pc.yellow(`refused ${message.name} before it ran. The agent reads:`));
    for (const line of todo!.split('\n')) console.log(`          ${pc.italic(line)}`);
    if (also) console.log(pc.dim(`          … and ${also.split('\n').length} more lines: conditions of other rules that do not hold here`));
    return;
  }
  if (message.name === 'cancel_reservation' && message.status !== 'error') {
    attempts.ran++;
    const proof = proofs.shift();
    if (proof?.derivation) {
      say.panoptes(pc.green('proved cancel_reservation allowed before it ran:'));
      for (const line of formatDerivation(proof.derivation).replaceAll(AIRLINE_RULES_PATH, 'policy.rules').split('\n')) console.log(`          ${pc.dim(line)}`);
    }
  }
  const shown = text.length > 160 ? `${text.slice(0, 157)}...` : text;
  say.tool(`${message.name} -> ${shown}`);
}

const times = (count: number) => (count === 1 ? 'once' : count === 2 ? 'twice' : `${count} times`);
const isPolicyTool = (name: string | undefined) => name === 'query_policy' || name === 'set_context' || name === 'record_confirmation';

async function main() {
  const online = Boolean(process.env.OPENAI_API_KEY);
  // The customer is not logged in: the agent has to find out who they are. The world's clock is the airline
  // domain's "now", 2024-05-15 15:00 EST; reservation 1YVFB9 was booked 16 hours before.
  const { sentinel, facts, tools, db } = await createAirlineSession();
  const story: Story = { ran: new Set(), proofs: [], attempts: { refused: 0, ran: 0 } };
  const agent = createAgent({
    model: online ? new ChatOpenAI({ model: 'gpt-4o-mini' }) : scriptedModel(),
    tools: langchainTools(tools, story.ran),
    systemPrompt: SYSTEM,
    middleware: [panoptesMiddleware({ sentinel: keepingProofs(sentinel, story.proofs) })],
    checkpointer: new MemorySaver(), // the conversation goes on across the customer's turns
  });

  console.log(pc.bold(`\nPanoptes airline policy + LangChain createAgent, ${online ? 'gpt-4o-mini' : 'a scripted model (set OPENAI_API_KEY for a real one)'}`));
  console.log(pc.dim(`Rulebase: examples/airline/policy.rules (${sentinel.rulebase.guards.size} guarded tools); ${Object.keys(tools).length} airline tools.`));

  for (const line of CUSTOMER) {
    say.customer(line);
    const stream = await agent.stream({ messages: [new HumanMessage(line)] }, { configurable: { thread_id: THREAD }, streamMode: 'updates', recursionLimit: 30 });
    for await (const update of stream) {
      for (const change of Object.values(update as Record<string, { messages?: BaseMessage[] } | undefined>)) {
        for (const message of change?.messages ?? []) tell(message, story);
      }
    }
  }

  const { attempts } = story;
  const status = db.reservations[RESERVATION]?.status ?? 'active';
  const told = facts.facts().filter((fact) => fact.source === 'user');
  const bound = Object.entries(facts.contexts()).map(([name, value]) => `${name} = ${formatFact('', [value]).slice(1, -1)}`);
  console.log(pc.bold('\nOutcome'));
  console.log(`  reservation ${RESERVATION}  ${status === 'cancelled' ? pc.green('cancelled') : status} in the database`);
  console.log(`  cancel_reservation  refused ${times(attempts.refused)} before it ran, ran ${times(attempts.ran)}`);
  console.log(`  context             ${bound.join('; ') || 'none'}`);
  console.log(`  from the customer   ${told.map((fact) => formatFact(fact.predicate, fact.args)).join('; ') || 'none'}`);
  console.log(
    status === 'cancelled' && attempts.refused > 0
      ? '\nEach refusal told the agent what was missing; the cancellation ran only once the policy proved it allowed.\n'
      : status === 'cancelled'
        ? '\nThe agent had everything the policy needed before its first attempt.\n'
        : '\nThe reservation was not cancelled.\n',
  );
}

await main();
