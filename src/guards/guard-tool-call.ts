import type { ToolCall } from '../messages/index.js';
import type { Monitor, ToolGuard } from '../monitor/index.js';
import type { CheckResult } from './result.js';
import type { Sentinel } from './sentinel.js';

/** The verdict on one tool call from the workflow monitor and the rules, in one shape for every host. */
export type ToolCallDecision =
  | { allowed: true }
  | {
      allowed: false;
      /** `workflow`: a constraint or the deviation policy; `rules`: the sentinel's proof failed or is blocked. */
      by: 'workflow' | 'rules';
      /** Text for the model: why the call did not run and what would make it allowed. */
      reason: string;
      /** The workflow constraints it would have violated (`by: 'workflow'`). */
      constraints: string[];
      /** The sentinel's full result, with its blockers (`by: 'rules'`). */
      check?: CheckResult;
    };

export interface GuardToolCallOptions {
  monitor?: Monitor;
  sentinel?: Sentinel;
  /** The monitor's session; required with a monitor. */
  sessionId?: string;
}

/**
 * Decides whether a tool call may run: the workflow monitor first (a refused call must not reach the rules, and the
 * rules may fetch data), then the sentinel's rules. With both, the sentinel runs as the monitor's guard, so a call
 * the rules refuse never enters the workflow's trace. Adapters call this before `execute` and turn a refusal into the
 * host's error result; it is the one place that fixes the order and the failure policy:
 * the monitor fails open (its own failures allow the call), the rules fail closed (a failing proof refuses it).
 * @example
 * const decision = await guardToolCall({ name: 'issue_refund', args }, { monitor, sentinel, sessionId });
 * if (!decision.allowed) return { isError: true, content: decision.reason };
 */
export async function guardToolCall(toolCall: ToolCall, { monitor, sentinel, sessionId }: GuardToolCallOptions): Promise<ToolCallDecision> {
  let check: CheckResult | undefined;
  const rules: ToolGuard | undefined = sentinel
    ? async (call) => {
        check = await sentinel.check(call.name, call.args);
        return check.allowed ? { allowed: true } : { allowed: false, reason: check.text };
      }
    : undefined;

  if (monitor && sessionId !== undefined) {
    const result = await monitor.beforeTool(sessionId, toolCall, rules ? { guard: rules } : {});
    if (result.action === 'allow') return { allowed: true };
    if (result.by === 'workflow') return { allowed: false, by: 'workflow', reason: result.reason, constraints: result.constraints };
    return { allowed: false, by: 'rules', reason: result.reason, constraints: [], ...(check ? { check } : {}) };
  }
  if (!rules) return { allowed: true };
  const verdict = await rules(toolCall);
  return verdict.allowed ? { allowed: true } : { allowed: false, by: 'rules', reason: verdict.reason, constraints: [], ...(check ? { check } : {}) };
}
