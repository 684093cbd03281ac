import { isHostControlFlow } from '../errors/index.js';
import type { ToolCall } from '../messages/index.js';
import { andThen, isPromiseLike, type MaybePromise } from '../async/index.js';
import type { BeforeToolResult, Monitor, ToolGuard } from '../monitor/index.js';
import { syncFirst } from '../monitor/sync-first.js';
import type { Blocker, CheckResult, ProofStatus } from './result.js';
import type { Sentinel } from './sentinel.js';
import { sentinelFor, type SentinelSource } from './sentinel-sessions.js';
import type { ToolOutcome } from './tool-results.js';
import { exchangeOf, type ConversationTurn } from '../grounding/index.js';

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

/**
 * A refused tool call as plain data, for a host's error result: which guard the app configured refused it (the
 * monitor or the sentinel), the text for the model, and the constraints or the sentinel's blockers.
 */
export interface ToolRefusal {
  /** The monitor (the workflow forbids this step now) or the sentinel (the rules do not prove the call allowed). */
  by: 'monitor' | 'sentinel';
  tool: string;
  /** Text for the model: why the call did not run and what to do instead. */
  reason: string;
  /** From the monitor: the constraints the call would have violated. */
  constraints?: string[];
  /** From the sentinel: `blocked` (something can unblock it) or `failed` (the facts say no). */
  status?: ProofStatus;
  /** From the sentinel: what stands between the call and its proof. */
  blockers?: Blocker[];
}

/**
 * The refusal in a decision, as the data a host's result carries.
 * @example
 * const decision = await guardToolCall({ name: 'issue_refund', args }, { monitor, sentinel, sessionId });
 * if (!decision.allowed) return { isError: true, refusal: toolRefusal('issue_refund', decision) };
 */
export function toolRefusal(tool: string, decision: Extract<ToolCallDecision, { allowed: false }>): ToolRefusal {
  if (decision.by === 'workflow') return { by: 'monitor', tool, reason: decision.reason, constraints: decision.constraints };
  const { check } = decision;
  return { by: 'sentinel', tool, reason: decision.reason, ...(check ? { status: check.status, blockers: check.blockers } : {}) };
}

export interface GuardToolCallOptions {
  monitor?: Monitor | undefined;
  /** One sentinel, or per-conversation sentinels (the session id picks one). */
  sentinel?: SentinelSource | undefined;
  /** The conversation: the monitor's session, and the sentinel's with per-conversation sentinels. A call without one is not checked by the monitor. */
  sessionId?: string | undefined;
  /** Told when the monitor itself fails (the rules then decide alone); log it once, say. */
  onMonitorError?: (error: unknown) => void;
  /**
   * The user's messages in the conversation so far, when the host has them: strict mode accepts a value of a
   * `given` parameter that the user said. Messages seen before are not kept twice.
   */
  userMessages?: readonly string[] | undefined;
  /**
   * The conversation's user and assistant texts so far, when the host has them: a grounded confirmation
   * (`askable ... for tool(param, ...)`) counts the user's last yes for a call whose named arguments the assistant's
   * message before it stated.
   */
  conversation?: readonly ConversationTurn[] | undefined;
  /**
   * A check run once the rules allow the call (an LLM judge: the step after the rules), inside the monitor's guard
   * like the rules, so a call it refuses never enters the workflow's trace. Its refusal is decided `by: 'rules'`. It
   * should not throw; one that does refuses the call (guards fail closed).
   */
  afterRules?: ToolGuard | undefined;
}

/**
 * Decides whether a tool call may run: the workflow monitor first (a refused call must not reach the rules, and the
 * rules may fetch data), then the sentinel's rules. With both, the sentinel runs as the monitor's guard, so a call
 * the rules refuse never enters the workflow's trace. Adapters call this before `execute` and turn a refusal into the
 * host's error result; it is the one place that fixes the order and the failure policy:
 * the monitor fails open (if it throws, the rules decide alone), the rules fail closed (a failing proof refuses).
 * @example
 * const decision = await guardToolCall({ name: 'issue_refund', args }, { monitor, sentinel, sessionId });
 * if (!decision.allowed) return { isError: true, content: decision.reason };
 */
export async function guardToolCall(toolCall: ToolCall, options: GuardToolCallOptions): Promise<ToolCallDecision> {
  return guardToolCallSyncFirst(toolCall, options);
}

/**
 * {@link guardToolCall}, answered synchronously when nothing waits (a workflow-only check of a session in memory),
 * so an adapter on a tool call's path pays no promise for it.
 * For adapter authors; application code calls {@link guardToolCall}.
 */
export function guardToolCallSyncFirst(toolCall: ToolCall, { monitor, sentinel: source, sessionId, onMonitorError, userMessages, conversation, afterRules }: GuardToolCallOptions): MaybePromise<ToolCallDecision> {
  let sentinel: Sentinel | undefined;
  try {
    sentinel = source && sentinelFor(source, sessionId);
    if (sentinel && userMessages && userMessages.length > 0) sentinel.facts.noteUserWords(userMessages);
    const exchange = sentinel && conversation ? exchangeOf(conversation) : undefined;
    if (exchange) sentinel!.facts.noteExchange(exchange);
  } catch {
    // Fail closed: without the conversation there are no facts to prove anything from.
    return { allowed: false, by: 'rules', reason: 'The policy cannot be checked for this call: it does not say which conversation it belongs to.', constraints: [] };
  }
  let check: CheckResult | undefined;
  // The sentinel's own tools (query the policy, set a context, record a confirmation) are how the model answers a
  // refusal; the rules never judge them (with `unguardedTools: 'deny'` they would refuse them).
  const rules: ToolGuard | undefined = sentinel && !isPolicyTool(sentinel, toolCall.name)
    ? async (call) => {
        check = await sentinel.check(call.name, call.args);
        return check.allowed ? { allowed: true } : { allowed: false, reason: check.text };
      }
    : undefined;
  const byRules = (reason: string): ToolCallDecision => ({ allowed: false, by: 'rules', reason, constraints: [], ...(check ? { check } : {}) });
  // The check after the rules runs only on a call they allow, and in their place as the monitor's guard.
  const guard: ToolGuard | undefined = rules && afterRules ? (call) => andThen(rules(call), (verdict) => (verdict.allowed ? afterRules(call) : verdict)) : (rules ?? afterRules);

  if (monitor && sessionId !== undefined) {
    const decide = (result: BeforeToolResult): ToolCallDecision => {
      if (result.action === 'allow') return { allowed: true };
      if (result.by === 'workflow') return { allowed: false, by: 'workflow', reason: result.reason, constraints: result.constraints };
      return byRules(result.reason);
    };
    const monitorFailed = (error: unknown) => {
      if (isHostControlFlow(error)) throw error; // the rules' data tool paused the run: not a failure of the monitor
      onMonitorError?.(error); // the monitor fails open: the rules decide alone
      return guardToolCallSyncFirst(toolCall, { sentinel, afterRules });
    };
    let result: MaybePromise<BeforeToolResult>;
    try {
      result = syncFirst(monitor).beforeTool(sessionId, toolCall, guard ? { guard } : {});
    } catch (error) {
      return monitorFailed(error);
    }
    return isPromiseLike(result) ? Promise.resolve(result).then(decide, monitorFailed) : decide(result);
  }
  if (!guard) return { allowed: true };
  return andThen(guard(toolCall), (verdict) => (verdict.allowed ? { allowed: true } : byRules(verdict.reason)));
}

/** Options of {@link recordToolResult}. */
export interface RecordToolResultOptions {
  /** One sentinel, or per-conversation sentinels (the session id picks one). */
  sentinel?: SentinelSource | undefined;
  /** The conversation, for per-conversation sentinels. */
  sessionId?: string | undefined;
  /** Told when recording fails (the call has already run, so the agent goes on); log it once, say. */
  onError?: (error: unknown) => void;
}

/**
 * Tells the sentinel what became of a tool call that ran (after `guardToolCall` allowed it): a successful write
 * consumes its call-bound confirmations and invalidates the data it changed; a data tool's result enters the fact
 * store as the sentinel's own fetch would; a failure changes nothing. Adapters call it after every guarded call;
 * the sentinel's own policy tools are skipped. Never throws: a failure is reported to `onError`.
 * @example
 * const output = await tool.execute(args);
 * recordToolResult({ name, args }, { ok: true, result: output }, { sentinel, sessionId });
 */
export function recordToolResult(toolCall: ToolCall, outcome: ToolOutcome, { sentinel: source, sessionId, onError }: RecordToolResultOptions): void {
  if (!source) return;
  try {
    const sentinel = sentinelFor(source, sessionId);
    if (isPolicyTool(sentinel, toolCall.name)) return;
    sentinel.recordResult(toolCall.name, toolCall.args, outcome);
  } catch (error) {
    onError?.(error);
  }
}

function isPolicyTool(sentinel: Sentinel, name: string): boolean {
  const { query, bindContext, confirm } = sentinel.toolNames;
  return name === query || name === bindContext || name === confirm;
}
