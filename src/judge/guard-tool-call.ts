import { guardToolCall, type GuardToolCallOptions, type ToolCallDecision, type ToolRefusal } from '../guards/index.js';
import type { ToolGuard } from '../monitor/index.js';
import type { ChatMessage, ToolCall } from '../messages/index.js';
import { judgeToolCall, type JudgedOutcome } from './host.js';
import type { Judge } from './judge.js';

/** Options of {@link guardJudgedToolCall}: the guards of `guardToolCall`, and the judge asked after them. */
export interface GuardJudgedToolCallOptions extends GuardToolCallOptions {
  /** Judges the call with its `tool_call` rubrics once the workflow and the rules allow it. Without one, the guards alone decide. */
  judge?: Judge | undefined;
  /** The conversation the judge reads (the user's requests, the recent tool results). */
  messages?: readonly ChatMessage[] | undefined;
  /** The workflow state, for rubrics' `applies_to.states`. */
  state?: string | undefined;
  /** The user already approved this exact call: a rubric that asks counts as answered (one that refuses still refuses). */
  approved?: boolean | undefined;
  /** The judge's outcome for this call when the host judged it already (before asking for an approval): not judged twice. */
  judged?: JudgedOutcome | undefined;
}

/** A call the judge refused (`deny`) or wants the user to approve first (`ask`), as the data a host's error result carries. */
export interface JudgedToolRefusal extends Omit<ToolRefusal, 'by'> {
  by: 'judge';
  /** `deny`: a rubric refused it (or could not be judged and its `on_error` is `deny`); `ask`: the user must approve it. */
  decision: 'deny' | 'ask';
  /** One line per rubric that did not pass, for logs: which rubric, its score or error, and what applies. */
  reasons: string[];
}

/** The guards' and the judge's verdict on one call. */
export type JudgedToolCallDecision =
  | { allowed: true; /** The judge's outcome, when it was asked (its `warnings` name the rubrics that failed with `warn`). */ judged?: JudgedOutcome }
  | (Extract<ToolCallDecision, { allowed: false }> & { judged?: undefined })
  | { allowed: false; by: 'judge'; reason: string; judged: JudgedOutcome; refusal: JudgedToolRefusal };

/**
 * Decides whether a tool call may run: `guardToolCall` (the workflow, then the rules) and, once they allow it, the
 * judge's `tool_call` rubrics (`judgeToolCall`). Rules first: a call they refuse costs no judgment. With a monitor,
 * the judge runs as part of the monitor's guard, so a call the judge refuses never enters the workflow's trace (it
 * is recorded as refused, as a call the rules refuse is). The judge never throws: a judgment that fails follows its
 * rubric's `on_error`. `ask` is a refusal here unless `approved`; a host that can ask the user does so and checks the
 * call again with `approved: true`.
 * @example
 * const decision = await guardJudgedToolCall(call, { sentinel, judge, messages, sessionId });
 * if (!decision.allowed) return decision.by === 'judge' ? errorResult(decision.refusal) : errorResult(toolRefusal(call.name, decision));
 */
export async function guardJudgedToolCall(call: ToolCall, options: GuardJudgedToolCallOptions): Promise<JudgedToolCallDecision> {
  const { judge, messages, state, approved, judged: prejudged, ...guards } = options;
  // No rubric for this call: the guards alone, at their own cost.
  if (judge === undefined || judge.applicable('tool_call', { call, ...(state === undefined ? {} : { state }) }).length === 0) return guardToolCall(call, guards);
  let judged: JudgedOutcome | undefined;
  const refuses = (outcome: JudgedOutcome) => outcome.decision === 'deny' || (outcome.decision === 'ask' && !approved);
  // The judge as the check after the rules: inside the monitor's guard, so the monitor records a call it refuses as
  // refused; and still asked when the monitor fails and the rules decide alone.
  const judgeAfterRules: ToolGuard = async (checked) => {
    judged = prejudged ?? (await judgeToolCall(judge, { call: checked, messages: messages ?? [], ...(guards.sessionId === undefined ? {} : { sessionId: guards.sessionId }), ...(state === undefined ? {} : { state }) }));
    return refuses(judged) ? { allowed: false, reason: judged.message ?? 'A policy check did not pass.' } : { allowed: true };
  };
  const { afterRules } = guards;
  const after: ToolGuard = afterRules ? async (checked) => { const verdict = await afterRules(checked); return verdict.allowed ? judgeAfterRules(checked) : verdict; } : judgeAfterRules;
  return settle(call, await guardToolCall(call, { ...guards, afterRules: after }), judged, refuses);
}

function settle(call: ToolCall, decision: ToolCallDecision, judged: JudgedOutcome | undefined, refuses: (outcome: JudgedOutcome) => boolean): JudgedToolCallDecision {
  if (judged === undefined) return decision; // the guards refused (or the monitor failed before the judge was asked)
  if (!refuses(judged)) return decision.allowed ? { allowed: true, judged } : decision;
  const refusal = judgedRefusal(call.name, judged);
  return { allowed: false, by: 'judge', reason: refusal.reason, judged, refusal };
}

/**
 * The refusal of a call the judge refused or asks about: the text for the model (for `ask`, the question to put to the
 * user), and the rubrics' reasons for logs.
 * @example
 * judgedRefusal('send_email', outcome).reason // 'send_email did not run: A policy check did not pass: ...'
 */
export function judgedRefusal(tool: string, judged: JudgedOutcome): JudgedToolRefusal {
  const found = judged.message ?? 'A policy check did not pass.';
  const decision = judged.decision === 'ask' ? 'ask' : 'deny';
  const reason =
    decision === 'ask'
      ? `${tool} did not run: it needs the user's approval first. ${found} Ask the user whether to go ahead with this exact call, and call it again only if they agree.`
      : `${tool} did not run: ${found} Do not try it again in another form; tell the user what was refused, or do what they asked instead.`;
  return { by: 'judge', tool, reason, decision, reasons: judged.reasons };
}
