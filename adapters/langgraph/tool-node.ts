import type { AIMessage, BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { ToolCall as LangChainToolCall } from '@langchain/core/messages/tool';
import { interrupt, isGraphBubbleUp, type Command, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { ToolNode, type ToolNodeOptions } from '@langchain/langgraph/prebuilt';
import {
  connectWorkflowStates,
  approvalQuestions,
  assertSentinelOption,
  declinedText,
  InvalidOptionError,
  isSentinelSessions,
  needsOnlyApproval,
  judgmentReporter,
  sentinelFor,
  stableJson,
  type JudgedOutcome,
  type Judge,
  type OnJudgment,
  type CheckResult,
  type Logger,
  type Monitor,
  type SentinelSource,
  type ToolCall,
  type ToolGuard,
} from '../../src/index.js';
import { createFailureLog, failOpenWith, type FailOpen, type FailureLog } from '../langchain/fail-open.js';
import { namedSessionId } from '../langchain/session-id.js';
import { assertJudgeOption, judgeCallBeforeRun, judgedRefusalText, judgesScope, type HostJudge } from '../langchain/judged-calls.js';
import { decideToolCall, refusalMessage, runRecorded } from '../langchain/tool-decision.js';
import { toToolCall } from '../langchain/translate.js';
import { graphSessionAccess, onGraphSession, type GraphSessionAccess } from './graph-monitor.js';
import { toolCallSessionId } from './graph-session.js';
import type { PanoptesGraphState } from './state.js';

/** Options of {@link GuardedToolNode}: LangGraph's `ToolNode` options, and the guards. Give a monitor, a sentinel, or both. */
export interface GuardedToolNodeOptions extends ToolNodeOptions {
  /** Runs the pre-emptive check before each call; best from `createGraphMonitor`, so the session lives in graph state. */
  monitor?: Monitor;
  /** Proves each call allowed by the rulebase before it runs: a sentinel, or per-conversation sentinels (`createSentinelSessions`). */
  sentinel?: SentinelSource;
  /** The session of every run. Without it: `configurable.thread_id`, `metadata.session_id`, else a hash of the conversation's opening. */
  sessionId?: string;
  /** Where Panoptes reports its own failures, once per place. @default console */
  logger?: Logger;
  /**
   * Ask the policy's confirmations of one call (`askable ... for tool` in the rulebase) through LangGraph's
   * `interrupt()`: a call the sentinel blocks on nothing but such confirmations pauses the run with a
   * {@link ApprovalRequest}; resume it with `new Command({ resume: { decision: 'approve' } })` (the confirmations are
   * recorded for that exact call, which is checked again and runs), `{ decision: 'reject', reason }` (the model reads
   * that the user declined) or `{ decision: 'edit', args }` (the edited call is approved instead, checked and run).
   * Needs a checkpointer, as every interrupt does. With a `judge`, a `tool_call` rubric that asks pauses the run the
   * same way (`approve` runs the call, `edit` runs the edited call once the rules allow it, `reject` refuses it).
   * @default false
   */
  approvals?: boolean;
  /**
   * An LLM judge (`createJudge`), the step after the rules: its `tool_call` rubrics judge each call the monitor and
   * the sentinel allowed, before it runs. `deny` refuses it (an error `ToolMessage` saying why), `ask` pauses for a
   * human with `approvals` (else refuses it with the question), `warn` lets it run and reports it.
   */
  judge?: Judge;
  /** Told every judged outcome that did not simply pass; user code, its throws caught. */
  onJudgment?: OnJudgment;
}

/** The value a {@link GuardedToolNode} with `approvals` interrupts with: what the human is asked to approve. */
export interface ApprovalRequest {
  type: 'panoptes-approval';
  tool: string;
  args: Record<string, unknown>;
  /** The policy's questions, each naming the exact call. */
  questions: string[];
  /** Present when the judge asks: the rubrics that asked (the questions are then the judge's). */
  rubrics?: string[];
}

/** How a run paused by an {@link ApprovalRequest} is resumed. */
export type ApprovalResponse = { decision: 'approve' } | { decision: 'reject'; reason?: string } | { decision: 'edit'; args: Record<string, unknown> };

/**
 * LangGraph's `ToolNode`, guarded: before each tool call runs, the monitor must not refuse it and then the sentinel
 * must prove it allowed (the core's `guardToolCall`), so a call the sentinel refuses never enters the workflow's
 * trace. A refused call never runs; it is answered with an error `ToolMessage` telling the model what to do instead,
 * as `ToolNode` answers a failing tool. With a graph monitor, the session goes back into graph state.
 *
 * Interrupts raised by a tool (human-in-the-loop) still reach the graph: `ToolNode` rethrows them, and Panoptes'
 * fail-open handling rethrows anything `isGraphBubbleUp` recognises, because they are LangGraph's control flow,
 * not failures.
 * With per-conversation sentinels, each call is judged by its thread's sentinel (the same session id as the monitor's).
 * Tool calls fanned out with `Send` (a task per call, `{ ...state, lg_tool_call }`, as `createAgent` routes them)
 * share their thread's session: the monitor takes their checks in turn, and each task continues what the others
 * recorded.
 * @throws {InvalidOptionError} at construction when neither `monitor` nor `sentinel` is given, or `sentinel` is not one.
 * @example
 * graph.addNode('tools', new GuardedToolNode([verifyIdentity, issueRefund], { monitor }));
 */
export class GuardedToolNode<T = any> extends ToolNode<T> {
  readonly #monitor: Monitor | undefined;
  readonly #sentinel: SentinelSource | undefined;
  readonly #sessionId: string | undefined;
  readonly #graphSession: GraphSessionAccess | undefined;
  readonly #failed: FailureLog;
  readonly #failOpen: FailOpen;
  readonly #approvals: boolean;
  readonly #judge: HostJudge | undefined;
  readonly #policyTools: ReadonlySet<string>;

  constructor(tools: ConstructorParameters<typeof ToolNode>[0], { monitor, sentinel, sessionId, logger = console, approvals = false, judge, onJudgment, ...options }: GuardedToolNodeOptions) {
    super(tools, options);
    if (!monitor && !sentinel) throw new InvalidOptionError({ parameter: 'monitor', value: monitor, fix: 'Pass a monitor from createGraphMonitor(), a sentinel from createSentinel(), or both.' });
    assertSentinelOption(sentinel);
    assertJudgeOption(judge);
    if (approvals && !sentinel && !judge) throw new InvalidOptionError({ parameter: 'approvals', value: approvals, fix: 'Approvals record the confirmations of a sentinel or answer a judge that asks: pass `sentinel` or `judge` too.' });
    this.#judge = judgesScope(judge, 'tool_call') ? { judge: judge!, report: judgmentReporter({ logger, onJudgment }), logger } : undefined;
    this.#policyTools = new Set(sentinel ? Object.values(sentinel.toolNames) : []);
    this.#approvals = approvals;
    this.#monitor = monitor;
    this.#sentinel = sentinel;
    if (monitor && sentinel) connectWorkflowStates(monitor, sentinel); // the workflow's states as `said(State)`
    this.#sessionId = sessionId;
    this.#graphSession = monitor && graphSessionAccess(monitor);
    this.#failed = createFailureLog(logger, isGraphBubbleUp);
    this.#failOpen = failOpenWith(this.#failed);
  }

  protected override async run(input: unknown, config: LangGraphRunnableConfig): Promise<T> {
    const state = input as Partial<PanoptesGraphState>;
    const graphSession = this.#graphSession;
    if (!graphSession || !Array.isArray(state?.messages)) return super.run(input, config);
    const lastCalls = (state.messages.findLast((message) => message.getType() === 'ai') as AIMessage | undefined)?.tool_calls;
    const session = toolCallSessionId(this.#sessionId, lastCalls?.[0]?.id, state.messages, config, this.#monitor!);
    // A `Send` of one tool call (`lg_tool_call`): a task beside others of the same step, which all read the same
    // session from state. ToolNode answers with `{ messages }`, or with a list of updates and commands when a tool
    // returned a Command.
    return onGraphSession(
      graphSession,
      { sessionId: session, stored: state.panoptes, fanOut: 'lg_tool_call' in state, where: 'graph state' },
      () => super.run(input, config),
      (result, panoptes) => (Array.isArray(result) ? [...result, { panoptes }] : { ...(result as object), panoptes }) as T,
      this.#failed,
    );
  }

  /** Records the human's answer: the call to run (the original, or the edited one), or the text for a refusal. */
  async #approved(call: ToolCall, check: CheckResult, answer: unknown, session: string | undefined): Promise<ToolCall | string> {
    const response = approvalResponseOf(answer);
    if (response === undefined) return `The approval of ${call.name} was answered with ${JSON.stringify(answer)}; resume with { decision: 'approve' | 'reject' | 'edit' }.`;
    if (response.decision === 'reject') return declinedText(call.name, response.reason);
    const sentinel = sentinelFor(this.#sentinel!, session);
    if (response.decision === 'approve') {
      sentinel.recordApproval(check);
      return call;
    }
    // An edit is the human's approval of the edited call, and only of it.
    const edited = { ...call, args: response.args };
    const editedCheck = await sentinel.check(edited.name, edited.args);
    if (needsOnlyApproval(editedCheck)) sentinel.recordApproval(editedCheck);
    return edited;
  }

  /** The judge as a tool guard (never on the sentinel's own tools), telling `seen` its outcome; none without a judge. */
  #judgeGuard(messages: readonly BaseMessage[] | undefined, session: string | undefined, seen: (outcome: JudgedOutcome) => void): ToolGuard | undefined {
    const judge = this.#judge;
    if (!judge) return undefined;
    return async (call) => {
      if (this.#policyTools.has(call.name)) return { allowed: true };
      const outcome = await judgeCallBeforeRun(judge, call, messages, session);
      seen(outcome);
      return outcome.decision === 'allow' ? { allowed: true } : { allowed: false, reason: judgedRefusalText(call, outcome) };
    };
  }

  protected override async runTool(call: LangChainToolCall, config: LangGraphRunnableConfig, state: unknown): Promise<ToolMessage | Command> {
    // A MessageGraph hands ToolNode the message list itself; a StateGraph hands it the state.
    const messages = Array.isArray(state) ? (state as BaseMessage[]) : (state as Partial<PanoptesGraphState> | undefined)?.messages;
    const needsSession = this.#monitor !== undefined || this.#judge !== undefined || (this.#sentinel !== undefined && isSentinelSessions(this.#sentinel));
    const session = needsSession && Array.isArray(messages) ? toolCallSessionId(this.#sessionId, call.id, messages, config, (this.#monitor ?? this.#sentinel)!) : undefined;
    let neutral = toToolCall(call);
    // The judge is the check after the rules, inside the monitor's guard: a call it refuses never enters the trace.
    let judged: JudgedOutcome | undefined;
    const decide = (toolCall: ToolCall, { judging = true } = {}) => {
      judged = undefined;
      const afterRules = judging ? this.#judgeGuard(messages, session, (outcome) => (judged = outcome)) : undefined;
      return decideToolCall(toolCall, { monitor: this.#monitor, sentinel: this.#sentinel, sessionId: session, messages, afterRules }, this.#failOpen);
    };
    let decision = await decide(neutral);
    if (!decision.allowed && this.#approvals && decision.check && needsOnlyApproval(decision.check)) {
      // Pauses the run (interrupt throws); on resume the node runs again and interrupt() returns the human's answer.
      const answer = interrupt<ApprovalRequest, unknown>(approvalRequest(decision.check));
      const approved = await this.#approved(neutral, decision.check, answer, session);
      if (typeof approved === 'string') return refusalMessage(neutral, approved);
      neutral = approved;
      call = { ...call, args: neutral.args };
      decision = await decide(neutral);
    }
    if (!decision.allowed && this.#approvals && (judged as JudgedOutcome | undefined)?.decision === 'ask') {
      // The judge asks: a human answers (interrupt throws now; on resume the node runs again, the judge answers the
      // same from its cache, and interrupt() returns the answer). The call the human approved or wrote is checked
      // again by the workflow and the rules, not by the judge.
      const answer = interrupt<ApprovalRequest, unknown>(judgeApprovalRequest(neutral, judged!));
      const approved = judgeApprovalOf(neutral, answer);
      if (typeof approved === 'string') return refusalMessage(neutral, approved);
      neutral = approved;
      call = { ...call, args: neutral.args };
      decision = await decide(neutral, { judging: false });
    }
    if (!decision.allowed) return refusalMessage(neutral, decision.reason);
    // When the run names no session, the tools learn the one hashed here as `metadata.session_id`: the sentinel's
    // policy tools find the conversation's sentinel by it.
    const unnamed = session !== undefined && namedSessionId(this.#sessionId, config) === undefined;
    const run = () => super.runTool(call, unnamed ? { ...config, metadata: { ...config.metadata, session_id: session } } : config, state);
    // The sentinel hears what became of the call: a write's confirmation consumed and its data invalidated, a data
    // tool's result recorded as facts.
    return runRecorded(neutral, run, { sentinel: this.#sentinel, sessionId: session }, (error) => this.#failed('sentinel.recordResult', error));
  }
}

function approvalRequest(check: CheckResult): ApprovalRequest {
  return { type: 'panoptes-approval', tool: check.tool, args: check.args, questions: approvalQuestions(check) };
}

function judgeApprovalRequest(call: ToolCall, outcome: JudgedOutcome): ApprovalRequest {
  const rubrics = outcome.judgments.filter((judgment) => judgment.action === 'ask').map((judgment) => judgment.rubric);
  return { type: 'panoptes-approval', tool: call.name, args: { ...call.args }, questions: [`${outcome.message ?? 'A policy check asks for a person.'} Approve ${call.name}(${stableJson(call.args)})?`], rubrics };
}

/** The call a human's answer to the judge's question lets run (the original, or the edited one), or the refusal's text. */
function judgeApprovalOf(call: ToolCall, answer: unknown): ToolCall | string {
  const response = approvalResponseOf(answer);
  if (response === undefined) return `The approval of ${call.name} was answered with ${JSON.stringify(answer)}; resume with { decision: 'approve' | 'reject' | 'edit' }.`;
  if (response.decision === 'reject') return declinedText(call.name, response.reason);
  return response.decision === 'approve' ? call : { ...call, args: response.args };
}

function approvalResponseOf(answer: unknown): ApprovalResponse | undefined {
  if (answer === true || answer === 'approve') return { decision: 'approve' };
  if (answer === false || answer === 'reject') return { decision: 'reject' };
  if (typeof answer !== 'object' || answer === null) return undefined;
  const { decision, reason, args } = answer as { decision?: unknown; reason?: unknown; args?: unknown };
  if (decision === 'approve') return { decision };
  if (decision === 'reject') return { decision, ...(typeof reason === 'string' ? { reason } : {}) };
  if (decision === 'edit' && typeof args === 'object' && args !== null && !Array.isArray(args)) return { decision, args: args as Record<string, unknown> };
  return undefined;
}
