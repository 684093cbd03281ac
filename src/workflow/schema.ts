import * as z from 'zod';
import { CONSTRAINT_TYPES } from '../temporal/types.js';
import { closedObject, closeJsonSchemaObject } from './closed-object.js';

/**
 * The workflow file as authors write it (the reference engine's format plus our optional keys). Defaults that only
 * fill a value are applied here; aliases, inline transitions and template prefixes are resolved by `normalise`.
 */

const stateSelector = z
  .union([z.string(), z.array(z.string())])
  .describe('A state name, `!name` (any state but that one), `*` (any state), or a list of these (any of them).');

const names = (what: string) => z.array(z.string()).optional().describe(what);

const classificationSchema = closedObject(
  {
    tool_calls: names('Tool names whose call means the agent is in this state (confidence 1.0).'),
    patterns: names('Regular expressions matched case-insensitively against the response text (confidence 0.9).'),
    exemplars: names('Example responses compared by embedding similarity.'),
    min_similarity: z.number().gt(0).lte(1).default(0.7).describe('Lowest cosine similarity to an exemplar that counts, in (0, 1].'),
    turn: z
      .enum(['assistant', 'user'])
      .optional()
      .describe("Whose message `patterns` are matched against: the assistant's response (default) or the user's message (a yes to a confirmation: the user's words, not the agent's)."),
  },
  { description: 'How a model response is recognised as this state: tool calls, then patterns, then exemplars.' },
);

const guardSchema = closedObject(
  {
    min_confidence: z.number().min(0).max(1).optional().describe("The classification's confidence must be at least this, in [0, 1]."),
    required_metadata: names("Keys that must be present in the step's metadata."),
    expression: z
      .string()
      .optional()
      .describe('A CEL expression over `confidence` (double), `method`, `from`, `to` (strings) and `metadata` (map).'),
  },
  { description: 'Conditions the transition needs besides its endpoints; all given conditions must hold.' },
);

const target = (what: string) => z.string().optional().describe(what);
const priority = z.number().default(0).describe('Higher wins when several transitions could apply.');
const description = z.string().optional().describe('Free text for people reading the workflow.');
const userMessage = z
  .string()
  .min(1)
  .optional()
  .describe('What the user is told instead of a response withheld for breaking the constraint (plain text, shown as written).');
const source = z.string().optional().describe('The sentence of the written policy this was drawn from (kept by `panoptes compile`); ignored by the monitor.');

const inlineTransitionSchema = z.union([
  z.string().describe('The name of a state this state may move to.'),
  closedObject(
    {
      to_state: target('The state this state may move to.'),
      target: target('Alias of `to_state`.'),
      to: target('Alias of `to_state`.'),
      guard: guardSchema.optional(),
      priority,
      description,
    },
    { aliases: { to_state: ['target', 'to'] }, required: ['to_state'] },
  ),
]);

const stateSchema = closedObject(
  {
    name: z.string().min(1).describe('Unique name of the state.'),
    description,
    is_initial: z.boolean().optional().describe('Marks the one state every session starts in.'),
    initial: z.boolean().optional().describe('Alias of `is_initial`.'),
    is_terminal: z.boolean().optional().describe('Marks a state that ends the workflow.'),
    terminal: z.boolean().optional().describe('Alias of `is_terminal`.'),
    classification: classificationSchema.optional(),
    transparent: z
      .boolean()
      .optional()
      .describe('A step that changes nothing (a lookup, a `think` call): constraints that do not name this state skip it, and moves into and out of it are judged from the last state before it that is not transparent.'),
    transitions: z
      .array(inlineTransitionSchema)
      .optional()
      .describe('Transitions out of this state, written inline: state names or `{ to_state, guard, priority }`.'),
    source,
  },
  { aliases: { is_initial: ['initial'], is_terminal: ['terminal'] } },
);

const transitionSchema = closedObject(
  {
    from_state: target('The state the transition leaves.'),
    from: target('Alias of `from_state`.'),
    to_state: target('The state the transition enters.'),
    target: target('Alias of `to_state`.'),
    to: target('Alias of `to_state`.'),
    guard: guardSchema.optional(),
    priority,
    description,
    source,
  },
  { aliases: { from_state: ['from'], to_state: ['target', 'to'] }, required: ['from_state', 'to_state'] },
);

const constraintSchema = closedObject({
  name: z.string().min(1).describe('Unique name of the constraint.'),
  type: z
    .union([z.enum(CONSTRAINT_TYPES), z.string().min(1)])
    .describe('The temporal operator: a built-in, or the name of a constraint type registered with `defineConstraintType`.'),
  trigger: stateSelector.optional(),
  target: stateSelector.optional(),
  condition: stateSelector.optional(),
  severity: z.enum(['warning', 'error', 'critical']).default('error').describe('`critical` escalates straight to a block.'),
  each: z
    .boolean()
    .optional()
    .describe('`precedence` and `response` only: every trigger needs its own target (a fresh one since the last trigger; one after it before the next). Repeated tool calls in one state count as separate triggers.'),
  grounded: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe(
      '`precedence` with `each` only: the trigger call\'s arguments the confirmation must have been given for. The target (a state recognised in the user\'s turn) counts for a call only when the message the user answered stated each of these arguments of it (case, spacing, number and date formats and list order aside).',
    ),
  intervention: z.string().optional().describe('Name of the intervention to schedule on violation.'),
  options: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("A registered constraint type's options, checked against the type's schema when the workflow loads."),
  user_message: userMessage,
  description,
  source,
});

const interventionSchema = z.union([
  z.string().describe('The template; a prefix `inject:`, `remind:` or `block:` chooses the strategy.'),
  closedObject({
    template: z.string().describe('The template; a prefix `inject:`, `remind:` or `block:` chooses the strategy.'),
    max_applications: z
      .number()
      .int()
      .min(1)
      .default(3)
      .describe('How often it may be applied in one session before escalating to the next stricter strategy.'),
    strategy: z
      .string()
      .min(1)
      .optional()
      .describe('The name of a registered intervention strategy (`defineInterventionStrategy`); the template then has no prefix.'),
    options: z.record(z.string(), z.unknown()).optional().describe("The registered strategy's options, checked against its schema when the workflow loads."),
    user_message: userMessage,
    source,
  }),
]);

const reaction = z.enum(['record', 'intervene', 'block']);
const deviationSchema = z
  .union([
    reaction,
    closedObject({
      reaction: reaction,
      intervention: z.string().optional().describe('Name of the intervention to schedule when `reaction` is `intervene`.'),
    }),
  ])
  .default('record')
  .describe('What happens when the agent moves along a transition the workflow does not list.');

/** The zod schema of a workflow document as written (snake_case keys, aliases, defaults filled). */
export const rawWorkflowSchema = closedObject({
  $schema: z.string().optional().describe('JSON Schema of this file, for editors; ignored by the loader.'),
  name: z.string().min(1).describe('Name of the workflow.'),
  version: z.union([z.string(), z.number()]).optional().describe('Version of the workflow; numbers are read as text.'),
  description,
  states: z.array(stateSchema).min(1).describe('The states the agent moves through.'),
  transitions: z.array(transitionSchema).default([]).describe('The allowed moves between states.'),
  constraints: z.array(constraintSchema).default([]).describe('Temporal constraints over the sequence of states.'),
  interventions: z.record(z.string(), interventionSchema).default({}).describe('Named correction templates.'),
  on_invalid_transition: deviationSchema,
  transparent_tools: names('Tools whose calls are no step at all (a `think` tool): they enter no state, even one that lists them.'),
});

/** A workflow document as written, after shape validation. */
export type RawWorkflow = z.output<typeof rawWorkflowSchema>;
/** One entry of `states` as written. */
export type RawState = RawWorkflow['states'][number];
/** One entry of the top-level `transitions` as written. */
export type RawTransition = RawWorkflow['transitions'][number];
/** One entry of a state's inline `transitions`: a target name or an object. */
export type RawInlineTransition = NonNullable<RawState['transitions']>[number];
/** A transition's `guard` as written. */
export type RawGuard = NonNullable<RawTransition['guard']>;
/** One entry of `constraints` as written. */
export type RawConstraint = RawWorkflow['constraints'][number];

const SCHEMA_ID = 'https://unpkg.com/panoptes/workflow.schema.json';

/**
 * A JSON Schema (draft 2020-12) of the workflow format, for editor completion and validation. The published
 * `workflow.schema.json` is this object; cross-references (unknown states, unsafe patterns) are checked only by the
 * loader.
 * @example
 * // first line of a workflow file:
 * // # yaml-language-server: $schema=./node_modules/panoptes/workflow.schema.json
 * writeFileSync('workflow.schema.json', JSON.stringify(workflowJsonSchema(), null, 2));
 */
export function workflowJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(rawWorkflowSchema, {
    target: 'draft-2020-12',
    io: 'input',
    override: closeJsonSchemaObject,
  }) as Record<string, unknown>;
  const { $schema, ...rest } = schema;
  return { $schema, $id: SCHEMA_ID, title: 'Panoptes workflow', ...rest };
}
