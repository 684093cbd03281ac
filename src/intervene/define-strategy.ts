import type * as z from 'zod';
import { InvalidOptionError } from '../errors/index.js';
import type { ChatMessage } from '../messages/index.js';

/** One intervention as a strategy's `apply` receives it: its name, its rendered text and its checked options. */
export interface StrategyIntervention<Options = unknown> {
  name: string;
  text: string;
  /** The intervention's `options` from the workflow, parsed by the strategy's schema (undefined without a schema). */
  options: Options;
}

/** What `defineInterventionStrategy` takes. */
export interface InterventionStrategyDefinition<Options> {
  /** The name an intervention writes in `strategy:`. Letters, digits, `_` and `-`, starting with a letter. */
  name: string;
  /**
   * Validates an intervention's `options` when the workflow loads (any zod schema); a failure is a positioned error.
   * Without one, an intervention using the strategy may not have `options`.
   */
  schema?: z.ZodType<Options>;
  /**
   * Returns the messages of the next model call with this strategy's interventions applied (all of this call's, in
   * order). Pure: never mutate `messages`. Synchronous, on the model call's path. A throw is caught: the call goes on
   * without them, and the monitor counts and logs it once.
   */
  apply(messages: readonly ChatMessage[], interventions: ReadonlyArray<StrategyIntervention<Options>>): ChatMessage[];
  /** One line for people. */
  description?: string;
}

/** An intervention strategy made by `defineInterventionStrategy`, ready to register. */
export interface InterventionStrategyDef<Options = unknown> extends Readonly<InterventionStrategyDefinition<Options>> {
  readonly kind: 'intervention-strategy';
}

const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/**
 * Defines how an intervention reaches the model. Register it, then an intervention in a workflow names it:
 * `{ template: '...', strategy: <name>, options: {...} }`. Repeated past `max_applications`, a registered strategy
 * escalates like the gentlest built-in: to a context reminder, then a note in the user's voice, then a block.
 * @throws {InvalidOptionError} when the name or `apply` is missing or malformed.
 * @example
 * const developerNote = defineInterventionStrategy({
 *   name: 'developer_note',
 *   schema: z.object({ label: z.string().default('Policy') }),
 *   apply: (messages, notes) => [...messages, ...notes.map(({ text, options }) => ({ role: 'user' as const, content: `[${options.label}] ${text}` }))],
 * });
 */
export function defineInterventionStrategy<Options = undefined>(definition: InterventionStrategyDefinition<Options>): InterventionStrategyDef<Options> {
  const fix = 'Pass { name, schema?, apply(messages, interventions) } to defineInterventionStrategy.';
  if (typeof definition?.name !== 'string' || !NAME.test(definition.name)) {
    throw new InvalidOptionError({ parameter: 'name', value: definition?.name, fix: `${fix} The name starts with a letter, then letters, digits, '_' or '-'.` });
  }
  if (definition.schema !== undefined && typeof definition.schema?.safeParse !== 'function') throw new InvalidOptionError({ parameter: 'schema', value: definition.schema, fix: `${fix} The schema is a zod schema of the options.` });
  if (typeof definition.apply !== 'function') throw new InvalidOptionError({ parameter: 'apply', value: definition.apply, fix });
  return Object.freeze({ ...definition, kind: 'intervention-strategy' as const });
}
