import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent, HumanMessage } from 'langchain';
import { readFileSync } from 'node:fs';
import { AIRLINE_RULES_PATH, createAirlineSession } from '../../examples/airline/sentinel.js';
import { AIRLINE_TOOL_SCHEMAS, type AirlineTool } from '../../examples/airline/tools.js';
import { parseRulebase, type Rulebase } from '../../src/rules/index.js';
import { panoptesMiddleware, textOf } from '../../adapters/langchain/index.js';
import type { SentinelOptions } from '../../src/guards/index.js';

/** One scripted model turn: what the agent does, given the conversation so far. */
export type Step = (messages: BaseMessage[]) => AIMessage;

let ids = 0;
/** An answer that calls one tool. */
export const call = (name: string, args: Record<string, unknown>): AIMessage =>
  new AIMessage({ content: '', tool_calls: [{ id: `call-${++ids}`, name, args, type: 'tool_call' }] });
/** An answer in words (ends the agent's turn). */
export const say = (text: string): AIMessage => new AIMessage(text);

/** The tool results of the conversation, oldest first. */
export const toolResults = (messages: BaseMessage[]) => messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message));
/** The last result of a tool. */
export const lastResult = (messages: BaseMessage[], name: string) => toolResults(messages).filter((message) => message.name === name).at(-1);
/** The confirmation goals the last refusal of a tool asked for (copied as a model would, from its text). */
export const goalsAskedBy = (messages: BaseMessage[], name: string, predicate: string) =>
  [...textOf(lastResult(messages, name)?.content).matchAll(/goal `([^`]+)`/g)].map((match) => match[1]!).filter((goal) => goal.startsWith(`${predicate}(`));

/**
 * The airline rulebase with its confirmations bound to the call but not grounded (`for tool`, no parameters named)
 * and without the insurance duty: what these scripted agents, which confirm through `record_confirmation` without
 * restating the call, were written against (issue 14). The grounded form has its own tests.
 */
export function callBoundAirlineRules(): Rulebase {
  const text = readFileSync(AIRLINE_RULES_PATH, 'utf8')
    .replace(/ for (\w+)\([^)]*\)/g, ' for $1')
    .replace(/^requires .*$/m, '');
  return parseRulebase(text, { source: AIRLINE_RULES_PATH, tools: AIRLINE_TOOL_SCHEMAS as never });
}

/**
 * A LangChain `createAgent` agent over the airline example (its database, tools and rulebase), guarded by
 * `panoptesMiddleware({ sentinel })`, whose model plays `steps` in order. `ran` lists the tool calls that ran (not
 * those refused), with their arguments.
 */
export async function airlineAgent({ userId, steps, ...options }: { userId: string; steps: Step[] } & Partial<SentinelOptions>) {
  const session = await createAirlineSession({ userId, rulebase: callBoundAirlineRules(), ...options });
  const ran: Array<{ name: string; args: Record<string, unknown> }> = [];
  const failing = new Set<string>();
  const tools = Object.values(session.tools).map((airlineTool: AirlineTool) =>
    tool(
      async (args: Record<string, unknown>, config) => {
        if (failing.has(airlineTool.name)) {
          return new ToolMessage({ content: `Error: ${airlineTool.name} is down`, tool_call_id: config.toolCall?.id ?? '', name: airlineTool.name, status: 'error' });
        }
        ran.push({ name: airlineTool.name, args });
        const output = airlineTool.execute(args);
        return typeof output === 'string' ? output : JSON.stringify(output);
      },
      { name: airlineTool.name, description: airlineTool.description, schema: airlineTool.parameters },
    ),
  );
  const model = fakeModel();
  for (const step of steps) model.respond(step);
  const agent = createAgent({ model, tools, middleware: [panoptesMiddleware({ sentinel: session.sentinel })], checkpointer: new MemorySaver() });
  const turn = async (text: string) => {
    const state = await agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: 'airline' }, recursionLimit: 60 });
    return state.messages as BaseMessage[];
  };
  return { ...session, ran, failing, turn };
}
