import { isHostControlFlow } from '../errors/index.js';
import { formatFact } from '../facts/index.js';
import type { Logger } from '../monitor/index.js';
import type { Sentinel } from './sentinel.js';
import { sentinelFor, type SentinelSource } from './sentinel-sessions.js';
import { SentinelInputError } from './sentinel-input-error.js';

/** A JSON schema for a tool's input, kept to what every model provider accepts (objects of strings, enums). */
export interface JsonObjectSchema {
  type: 'object';
  properties: Record<string, { type: 'string'; description: string; enum?: string[] }>;
  required: string[];
  additionalProperties: false;
}

/** What a tool for the model returns: text for the model, and whether it is an error result. */
export interface PolicyToolResult {
  content: string;
  isError: boolean;
}

/**
 * A tool for the model, free of any framework: adapters turn it into a LangChain tool, an AI SDK tool or an MCP tool.
 * `execute` never throws for bad input from the model; it answers with an error result the model can read.
 */
export interface PolicyTool {
  name: string;
  description: string;
  parameters: JsonObjectSchema;
  /** Runs the tool. `sessionId` picks the conversation when the tools act on per-conversation sentinels. */
  execute(args: unknown, call?: { sessionId?: string | undefined }): Promise<PolicyToolResult>;
}

/**
 * The three tools that let the model work with the policy symbolically: query a goal, bind a context variable,
 * record the user's confirmation of an askable. Their names are the sentinel's `toolNames`, which the blockers'
 * texts refer to.
 * @param source The sentinel they act on, or per-conversation sentinels (each call then names its session).
 * @param options.logger Where a failure of the tools' own is reported (the model reads that the policy could not be
 * consulted): the first one, with its error; later ones are not logged. @default console
 * @example
 * const tools = createPolicyTools(sentinel); // [query_policy, set_context, record_confirmation]
 * const result = await tools[0].execute({ goal: 'cancellable(reservation_of_interest)' });
 */
export function createPolicyTools(source: SentinelSource, { logger = console }: { logger?: Logger } = {}): PolicyTool[] {
  const { rulebase, toolNames } = source;
  const contexts = [...rulebase.contexts.values()];
  const askables = [...rulebase.askables.values()];
  const predicates = [
    ...[...rulebase.rules].map(([name, clauses]) => `${name}/${clauses[0]!.args.length}`),
    ...[...rulebase.data.values()].map((declaration) => `${declaration.predicate}/${declaration.params.length}`),
  ];
  let failureLogged = false;
  const guard = async (call: { sessionId?: string | undefined } | undefined, run: (sentinel: Sentinel) => Promise<string> | string): Promise<PolicyToolResult> => {
    try {
      return { content: await run(sentinelFor(source, call?.sessionId)), isError: false };
    } catch (error) {
      if (isHostControlFlow(error)) throw error;
      if (SentinelInputError.isInstance(error)) return { content: error.modelText, isError: true };
      // Not the model's doing (a call that names no conversation, a failing data tool): the model can only go on,
      // so whoever runs the agent must hear of it.
      if (!failureLogged) logger.warn('[panoptes] A policy tool failed; the model was told the policy could not be consulted. Later failures of these tools are not logged.', error);
      failureLogged = true;
      return { content: 'The policy could not be consulted right now.', isError: true };
    }
  };
  const stringArg = (args: unknown, name: string): string => {
    const value = typeof args === 'object' && args !== null ? (args as Record<string, unknown>)[name] : undefined;
    if (typeof value !== 'string' || value.trim() === '') throw new SentinelInputError(`missing ${name}`, { modelText: `Pass "${name}" as a non-empty string.` });
    return value;
  };

  const query: PolicyTool = {
    name: toolNames.query,
    description:
      `Ask the policy whether a goal holds, in its rule language. Use context names instead of ids (${contexts.map((context) => context.name).join(', ') || 'none'}), ` +
      `capitalised variables for unknowns, e.g. \`booking_status(booking_of_interest, S)\`. Answers with the values found, or with what is missing. ` +
      `Predicates: ${predicates.join(', ')}.`,
    parameters: {
      type: 'object',
      properties: { goal: { type: 'string', description: 'The goal, e.g. cancellable(booking_of_interest)' } },
      required: ['goal'],
      additionalProperties: false,
    },
    execute: (args, call) => guard(call, async (sentinel) => (await sentinel.query(stringArg(args, 'goal'))).text),
  };

  const bind: PolicyTool = {
    name: toolNames.bindContext,
    description:
      'Set what the conversation is about, when the user names it or changes focus ("what about my other booking?"). ' +
      contexts.map((context) => `${context.name}${context.description ? `: ${context.description}` : ''}`).join('; '),
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The context variable', enum: contexts.map((context) => context.name) },
        value: { type: 'string', description: 'Its value, exactly as it appears in the facts or tool results, e.g. "ABC123"' },
      },
      required: ['name', 'value'],
      additionalProperties: false,
    },
    execute: (args, call) =>
      guard(call, (sentinel) => {
        const name = stringArg(args, 'name');
        const value = stringArg(args, 'value');
        sentinel.bindContext(name, value);
        return `${name} = ${formatFact('', [value]).slice(1, -1)}.`;
      }),
  };

  const confirm: PolicyTool = {
    name: toolNames.confirm,
    description:
      "Record the user's explicit answer to a question the policy asked for. Only after the user has answered in this conversation; never on their behalf. " +
      `Confirmable: ${askables.map((askable) => `${askable.predicate}(${[...askable.params, ...(askable.confirms ? ['CallRef'] : [])].join(', ')})`).join(', ') || 'none'}.` +
      (askables.some((askable) => askable.confirms) ? ' CallRef binds a yes to one exact call: copy the goal, reference included, from that call\'s refusal.' : ''),
    parameters: {
      type: 'object',
      properties: {
        goal: { type: 'string', description: 'The goal exactly as the policy gave it, e.g. confirm_cancel("ABC123")' },
        answer: { type: 'string', description: "The user's answer", enum: ['yes', 'no'] },
      },
      required: ['goal', 'answer'],
      additionalProperties: false,
    },
    execute: (args, call) =>
      guard(call, (sentinel) => {
        const answer = stringArg(args, 'answer');
        if (answer !== 'yes' && answer !== 'no') throw new SentinelInputError('bad answer', { modelText: 'answer must be "yes" or "no".' });
        const recorded = sentinel.confirm(stringArg(args, 'goal'), answer === 'yes');
        return answer === 'yes' ? `Recorded: ${recorded}.` : `Recorded that the user declined: ${recorded} does not hold.`;
      }),
  };

  return [query, bind, confirm];
}
