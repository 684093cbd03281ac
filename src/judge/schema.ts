import * as z from 'zod';
import { closedObject, closeJsonSchemaObject } from '../workflow/closed-object.js';
import { CRITERION_SCALES } from './rubric.js';

/**
 * A rubric file as authors write it (snake_case keys). Unknown keys are errors with a did-you-mean, as in workflow
 * files; cross-field checks (scale ranges, duplicate ids) run after the shape is known, in `check.ts`.
 */

const names = (what: string) => z.array(z.string().min(1)).optional().describe(what);

const criterionSchema = closedObject(
  {
    id: z.string().min(1).describe('Names the criterion in verdicts.'),
    description: z.string().min(1).describe('What the judge checks, in plain words.'),
    scale: z.enum(CRITERION_SCALES as [string, ...string[]]).default('binary').describe('binary (0 or 1) or a Likert scale from 1 (likert_3, likert_5, likert_7).'),
    weight: z.number().gt(0).default(1).describe("The criterion's share of the rubric's score, relative to the other weights."),
    fail_below: z.number().optional().describe("A score below this, on the criterion's scale, fails the rubric whatever its weighted score."),
    anchors: z.record(z.string(), z.string()).optional().describe('What each score means, by score (e.g. 1: "promises an amount").'),
  },
  { description: 'One criterion the judge scores.' },
);

const appliesToSchema = closedObject(
  {
    tools: names('tool_call scope: the tools whose calls are judged (default: every tool).'),
    states: names('Workflow states in which the rubric applies (default: every state).'),
    rules: names('Rule names (the `judged(...)` condition of a rulebase) that may ask this rubric.'),
  },
  { description: 'Which calls, states and rules the rubric applies to; a missing key means any.' },
);

const onError = z.enum(['allow', 'deny', 'ask']).describe('What happens when the judge cannot answer (timeout, budget, an invalid or ungrounded answer).');
const onFail = z.enum(['warn', 'intervene', 'block', 'ask']).describe('What a failed rubric does.');
const scope = z.enum(['tool_call', 'turn', 'conversation']).describe('tool_call: a call before it runs; turn: one response; conversation: the transcript.');

export const rawRubricSchema = closedObject(
  {
    id: z.string().min(1).describe('Names the rubric in verdicts, cache keys and `judged(...)` conditions.'),
    version: z.union([z.string(), z.number()]).optional().describe("Names this wording in cache keys and cassettes (default: a hash of the rubric's content)."),
    description: z.string().min(1).describe('What the rubric checks, for the judge and for people.'),
    scope,
    applies_to: appliesToSchema.optional(),
    criteria: z.array(criterionSchema).min(1).describe('The criteria the judge scores.'),
    pass_at: z.number().min(0).max(1).describe('The weighted score, in [0, 1], at or above which the rubric passes.'),
    on_fail: onFail,
    on_error: onError,
    sample: z.number().min(0).max(1).optional().describe('The share of eligible judgments run, in [0, 1] (default 1).'),
    every_turns: z.number().int().min(1).optional().describe('conversation scope: judge on every n-th turn only (default 1).'),
    tool_results: z.number().int().min(0).optional().describe('tool_call scope: the recent tool results the judge sees (default 3; 0 shows only the requests and the call).'),
  },
  { description: 'One rubric: weighted criteria an LLM judge scores.' },
);

const policyObjectSchema = closedObject(
  {
    rules: z.array(z.string().min(1)).min(1).describe('Plain-English rules; each is a binary criterion.'),
    id: z.string().min(1).optional().describe('The rubric id (default `policy`).'),
    scope: scope.optional(),
    applies_to: appliesToSchema.optional(),
    on_fail: onFail.optional(),
    on_error: onError,
  },
  { description: 'The policy shorthand with its options: one binary rubric that passes when every rule holds.' },
);

export const rawRubricFileSchema = closedObject(
  {
    version: z.union([z.string(), z.number()]).optional().describe("The file's version: every rubric's, unless it names its own."),
    description: z.string().optional().describe('Free text for people.'),
    rubrics: z.array(rawRubricSchema).optional(),
    policy: z
      .union([z.array(z.string().min(1)).min(1), policyObjectSchema])
      .optional()
      .describe('Shorthand: plain-English rules judged as one binary rubric (`policy`), turn scope, block on fail.'),
  },
  { description: 'A Panoptes rubric file: rubrics an LLM judge checks where rules cannot.' },
);

export type RawRubric = z.infer<typeof rawRubricSchema>;
export type RawRubricFile = z.infer<typeof rawRubricFileSchema>;

/**
 * The JSON Schema of rubric files (draft 2020-12, closed objects), for editors: the published `rubric.schema.json`.
 * Cross-field checks (scores within their scale, unique ids, keys that fit only some scopes) stay with the loader.
 * @example
 * writeFileSync('rubric.schema.json', JSON.stringify(rubricJsonSchema(), null, 2));
 */
export function rubricJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(rawRubricFileSchema, { target: 'draft-2020-12', io: 'input', override: closeJsonSchemaObject }) as Record<string, unknown>;
  const { $schema, ...rest } = schema;
  return { $schema, $id: 'https://unpkg.com/panoptes/rubric.schema.json', title: 'Panoptes rubric file', ...rest };
}
