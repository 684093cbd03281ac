import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { z } from 'zod';
import type { Citation, ReactReasonCode } from '../../../src/index.js';
import type { ReactFallback, ReactFallbackContext } from './options.js';
import type { CaseBundle, Criterion, CriterionStatus, VerificationState } from './verification-state.js';

/**
 * A verdict a fallback function gives: the whole result, as it is (the graph adds the criterion's id, the trace and
 * the usage, and marks it `fallbackUsed`). Its citations are yours, not checked against what the run retrieved: a
 * rule over the case's fields decides without reading the policy.
 */
export interface FallbackVerdict {
  status: CriterionStatus;
  /** In [0, 1]. */
  confidence: number;
  rationale: string;
  citations?: Citation[];
  reasonCode?: ReactReasonCode;
  detail?: string;
}

/** What a fallback function of the verifier receives: the error, the case, the criterion, the state and this evaluation's messages. */
export interface VerificationFallbackContext extends ReactFallbackContext<VerificationState> {
  caseBundle: CaseBundle;
  criterion: Criterion;
}

/** Another chat model to take over, or a function that decides (a rule over the case's fields, a simpler classifier). */
export type VerificationFallback = BaseChatModel | ((context: VerificationFallbackContext) => FallbackVerdict | Promise<FallbackVerdict>);

const REASON_CODES = ['budget_iterations', 'budget_tokens', 'budget_cost', 'timeout', 'llm_error', 'invalid_finish', 'retrieval_error', 'loop_detected', 'workflow_blocked', 'low_confidence', 'unsupported', 'invalid_input', 'tool_error'] as const satisfies readonly ReactReasonCode[];

/** What a fallback function's verdict must be: checked as `finish` is, with the citations optional. */
export const fallbackVerdictSchema = z.object({
  status: z.enum(['met', 'not_met', 'uncertain']),
  confidence: z.number().min(0).max(1),
  rationale: z.string(),
  citations: z.array(z.object({ source: z.string(), section: z.string().optional(), quote: z.string() })).optional(),
  reasonCode: z.enum(REASON_CODES).optional(),
  detail: z.string().optional(),
});

/** The fallback as the ReAct graph runs it: a function is handed the case and the criterion besides the error and the state. */
export function reactFallbackOf(fallback: VerificationFallback | undefined): ReactFallback<unknown> | undefined {
  if (typeof fallback !== 'function') return fallback;
  return (context) => {
    const state = context.state as unknown as VerificationState;
    return fallback({ ...context, state, caseBundle: state.caseBundle ?? {}, criterion: state.criterion });
  };
}
