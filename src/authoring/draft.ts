import { z } from 'zod';
import { CONSTRAINT_TYPES } from '../temporal/index.js';

const quote = z.string().describe('A verbatim quote of the policy sentence this item comes from.');
const selector = z.union([z.string(), z.array(z.string())]);

/**
 * What the model writes for a workflow: the workflow file's own keys, plus a `source` quote on every state,
 * transition, constraint and intervention. Kept flat (interventions as a list) because structured-output providers
 * handle lists of objects better than maps with free keys.
 */
export const workflowDraftSchema = z.object({
  name: z.string().describe('kebab-case name of the workflow'),
  description: z.string(),
  states: z.array(
    z.object({
      name: z.string().describe('snake_case state name'),
      description: z.string(),
      initial: z.boolean().optional(),
      terminal: z.boolean().optional(),
      tool_calls: z.array(z.string()).optional().describe('tools whose call means the agent is in this state'),
      patterns: z.array(z.string()).optional().describe('case-insensitive regular expressions over the reply text'),
      exemplars: z.array(z.string()).optional(),
      source: quote,
    }),
  ),
  transitions: z.array(z.object({ from: z.string(), to: z.string(), source: quote })),
  constraints: z.array(
    z.object({
      name: z.string().describe('snake_case constraint name'),
      type: z.enum(CONSTRAINT_TYPES),
      trigger: selector.optional(),
      target: selector.optional(),
      condition: selector.optional(),
      severity: z.enum(['warning', 'error', 'critical']),
      intervention: z.string().optional(),
      description: z.string().optional(),
      source: quote,
    }),
  ),
  interventions: z.array(z.object({ name: z.string(), template: z.string(), source: quote })),
});
export type WorkflowDraft = z.infer<typeof workflowDraftSchema>;

/** What the model writes for a rulebase: one declaration or rule per item, in the rule language, with its quote. */
export const rulebaseDraftSchema = z.object({
  items: z.array(
    z.object({
      kind: z.enum(['context', 'data', 'askable', 'rule', 'guard']),
      text: z.string().describe('one declaration or rule in the rule language, as it would appear in the file'),
      source: quote,
    }),
  ),
});
export type RulebaseDraft = z.infer<typeof rulebaseDraftSchema>;

/**
 * What the model writes for a rubric file: the file's own keys, plus a `source` quote on every rubric and criterion.
 * Anchors are a list of `{ score, text }` (structured-output providers handle lists better than maps with free keys);
 * the scales, scopes and actions are the loader's enums, so a draft cannot name one the loader does not know.
 */
export const rubricDraftSchema = z.object({
  rubrics: z.array(
    z.object({
      id: z.string().describe('snake_case rubric id'),
      description: z.string().describe('what the rubric checks, in one or two sentences the judge reads'),
      scope: z.enum(['tool_call', 'turn', 'conversation']),
      applies_to: z
        .object({
          tools: z.array(z.string()).optional().describe('tool_call scope: the tools whose calls are judged'),
          states: z.array(z.string()).optional().describe('workflow states in which the rubric applies'),
          rules: z.array(z.string()).optional().describe('names of judged(...) conditions that may ask this rubric'),
        })
        .optional(),
      criteria: z.array(
        z.object({
          id: z.string().describe('snake_case criterion id'),
          description: z.string().describe('one thing the judge checks, phrased so that the best score means the policy holds'),
          scale: z.enum(['binary', 'likert_3', 'likert_5', 'likert_7']),
          weight: z.number().optional(),
          fail_below: z.number().optional().describe("a score below this, on the criterion's own scale, fails the rubric"),
          anchors: z.array(z.object({ score: z.number().int(), text: z.string() })).optional().describe('what some scores mean'),
          source: quote,
        }),
      ),
      pass_at: z.number().describe('the weighted score in [0, 1] at or above which the rubric passes'),
      on_fail: z.enum(['warn', 'intervene', 'block', 'ask']),
      on_error: z.enum(['allow', 'deny', 'ask']),
      tool_results: z.number().int().optional().describe('tool_call scope: recent tool results the judge sees (0: only the requests and the call)'),
      every_turns: z.number().int().optional().describe('conversation scope: judge every n-th turn'),
      source: quote,
    }),
  ),
});
export type RubricDraft = z.infer<typeof rubricDraftSchema>;
