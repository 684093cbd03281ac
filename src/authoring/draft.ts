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
