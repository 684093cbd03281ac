import type { CaseBundle, Criterion } from './verification-state.js';

/** The id of the built-in prompt: results carry it, so a prompt change shows in their `promptId`. */
export const VERIFICATION_PROMPT_ID = 'panoptes-verify-v1';

/** The built-in system prompt of the verifier, after the reference controller's. */
export const VERIFICATION_SYSTEM_PROMPT = `You verify whether a case meets one criterion of a written policy.
Work step by step. Search the policy with search_policy, read the case's fields with get_case_facts, and use
find_in_policy to locate the exact wording you will quote. Decide only from what the tools returned.
When you are done, call finish with:
- status: "met" when the case satisfies the criterion, "not_met" when it does not, "uncertain" when the evidence is missing or ambiguous;
- confidence: between 0 and 1;
- citations: the policy passages your decision rests on, each with its source and a quote copied word for word from a search result;
- rationale: a short explanation linking the case's facts to the policy's words.
Never cite text you did not retrieve. If the policy or the case does not settle the question, answer "uncertain".`;

/** The opening message of a run: the criterion, and which case fields exist (their values are read with a tool). */
export function criterionMessage(criterion: Criterion, caseBundle: CaseBundle): string {
  const fields = Object.keys(caseBundle ?? {});
  return `Criterion ${criterion.id}: ${criterion.text}\n\nCase fields you can read with get_case_facts: ${fields.length > 0 ? fields.join(', ') : '(none)'}.`;
}
