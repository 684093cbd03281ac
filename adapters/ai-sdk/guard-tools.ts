import type { ModelMessage, ToolExecutionOptions, ToolSet } from 'ai';
import { policyNeedsApproval, recordApprovalOf, wasApproved } from './approvals.js';
import {
  connectWorkflowStates,
  assertSentinelOption,
  guardJudgedToolCall,
  guardToolCall,
  judgeToolCall,
  InvalidOptionError,
  isSentinelSessions,
  needsOnlyApproval,
  recordToolResult,
  toolRefusal,
  type ConversationTurn,
  type Judge,
  type JudgedOutcome,
  type JudgedToolRefusal,
  type Logger,
  type Monitor,
  type SentinelSource,
  type ToolCall,
  type ToolRefusal,
} from '../../src/index.js';
import { createFailOpen } from './fail-open.js';
import { chatMessagesOf } from './judged-messages.js';
import { sessionOfCall, workflowWouldRefuse, type ToolSessionId } from './tool-call-sessions.js';
import { ToolCallRefusedError } from './tool-call-refused-error.js';
import { toCoreToolCall } from './translate.js';

/** Options of {@link guardTools}. Give a monitor, a sentinel, a judge, or any of them together. */
export interface GuardToolsOptions {
  /** Refuses calls whose workflow state would break a critical constraint (`monitor.beforeTool`). */
  monitor?: Monitor;
  /**
   * Refuses calls the rulebase does not prove allowed (`sentinel.check`): a sentinel, or per-conversation sentinels
   * (`createSentinelSessions`), of which each call's session picks one.
   */
  sentinel?: SentinelSource;
  /**
   * The conversation, or a function of the execution options (e.g. of `experimental_context`). When absent,
   * each call is checked in the session of the response that asked for it, as `panoptesMiddleware` on the same
   * monitor recorded it; a call it cannot place (no middleware, or an id seen in two sessions) skips the monitor's
   * check, with a warning, and the monitor judges it at the next model call instead. Per-conversation sentinels
   * refuse a call they cannot place.
   * @default undefined
   */
  sessionId?: ToolSessionId;
  /** Receives the adapter's own failures, once per cause. @default console */
  logger?: Logger;
  /**
   * Ask the policy's confirmations of one call (`askable ... for tool` in the rulebase) through the AI SDK's tool
   * approval: a call the sentinel blocks on nothing but such confirmations gets `needsApproval`, so the host asks
   * the app's user with a `tool-approval-request`; an approving `tool-approval-response` records the confirmations
   * for that exact call when the approved call runs, and the call is checked again and runs. A denial never runs it.
   * Combined with a tool's own `needsApproval` (either one asks; neither asks about a call the guards refuse). With
   * per-conversation sentinels, needs `sessionId`. With a `judge`, a `tool_call` rubric that asks (`on_fail: ask`,
   * `on_error: ask`) asks through the same approval; an approving response runs the call (a rubric that refuses
   * still refuses it).
   * @default false
   */
  approvals?: boolean;
  /**
   * Judges each call the workflow and the rules allow with the judge's `tool_call` rubrics, before it runs
   * (`createJudge`), on the call and the conversation the host passes the tool (`options.messages`). A rubric that
   * refuses (`block`, `intervene`, or `on_error: deny`) refuses the call as a guard does: `execute` throws a
   * {@link ToolCallRefusedError} whose `refusal.by` is `'judge'`, and the model reads why. One that asks (`ask`) goes
   * through the AI SDK's tool approval when `approvals` is on or the tool has its own `needsApproval`; otherwise the
   * call is refused with the question, for the model to put to the user. One that warns (`warn`) lets the call run
   * and reports it to `onJudgeWarning`. Budgets are counted per session when the call's session is known.
   */
  judge?: Judge;
  /** Receives the rubrics that failed with `on_fail: warn` on a call that ran. @default a warning through `logger` */
  onJudgeWarning?: (warning: { tool: string; toolCallId: string; warnings: string[] }) => void;
}

/**
 * Wraps each tool's `execute` so a call is checked before it runs, by the core's `guardToolCall`: the monitor first
 * (workflow order), then the sentinel (the rules) as the monitor's guard, so a call the workflow refuses never
 * reaches the rules and a call the rules refuse never enters the workflow's trace. A refused call does not run:
 * `execute` throws a {@link ToolCallRefusedError}, which the AI SDK turns into a tool error, so the model's next
 * request carries an `error-text` result with the reason and a `useChat` UI shows the call as `output-error`. Tools
 * without `execute` (answered by the client) are returned as they are.
 *
 * A tool that asks for approval (its own `needsApproval`, or `approvals`) asks only about calls the guards allow: its
 * `needsApproval` first looks for a refusal (the monitor's preview of the call, which `panoptesMiddleware` on the
 * same monitor recorded, then the rules), and a call that will be refused needs no approval; it is refused at once,
 * and its refusal is recorded once. An allowed call is checked again when it runs, after the approval.
 *
 * With a `judge`, a call the guards allow is judged last, with the `tool_call` rubrics that apply to it, before it
 * runs (inside the monitor's guard, so a call the judge refuses is recorded as refused).
 *
 * The monitor fails open (a monitor error lets the rules decide alone); the sentinel fails closed (it denies what it
 * could not prove, by design of the guards); the judge follows each rubric's `on_error` when it cannot answer.
 * @throws {InvalidOptionError} at construction when no guard is given, or a guard, the judge or `sessionId` is malformed.
 * @example
 * const model = wrapLanguageModel({ model: openai('gpt-4o-mini'), middleware: panoptesMiddleware({ monitor }) });
 * await generateText({ model, tools: guardTools({ issue_refund, verify_identity }, { monitor }), prompt, stopWhen: stepCountIs(8) });
 */
export function guardTools<TOOLS extends ToolSet>(tools: TOOLS, { monitor, sentinel, sessionId, logger = console, approvals = false, judge, onJudgeWarning }: GuardToolsOptions): TOOLS {
  if (monitor === undefined && sentinel === undefined && judge === undefined) {
    throw new InvalidOptionError({ parameter: 'monitor', value: undefined, fix: 'Pass a monitor (createMonitor), a sentinel (createSentinel), a judge (createJudge), or several.' });
  }
  if (judge !== undefined && typeof judge?.judgeScope !== 'function') throw new InvalidOptionError({ parameter: 'judge', value: judge, fix: 'Pass the result of createJudge().' });
  if (onJudgeWarning !== undefined && typeof onJudgeWarning !== 'function') throw new InvalidOptionError({ parameter: 'onJudgeWarning', value: onJudgeWarning, fix: 'Pass a function, or leave it out to log warnings.' });
  if (monitor !== undefined && typeof monitor.beforeTool !== 'function') throw new InvalidOptionError({ parameter: 'monitor', value: monitor, fix: 'Pass the result of createMonitor().' });
  assertSentinelOption(sentinel);
  if (sessionId !== undefined && !(typeof sessionId === 'function' || (typeof sessionId === 'string' && sessionId !== ''))) {
    throw new InvalidOptionError({ parameter: 'sessionId', value: sessionId, fix: "Pass the session's id, a function of the tool's execution options, or nothing to use the session the middleware recorded." });
  }
  const perConversation = sentinel !== undefined && isSentinelSessions(sentinel);
  if (approvals && ((sentinel === undefined && judge === undefined) || (perConversation && sessionId === undefined))) {
    throw new InvalidOptionError({ parameter: 'approvals', value: approvals, fix: 'Approvals record the confirmations of a sentinel or answer a judge that asks: pass `sentinel` (with per-conversation sentinels, and `sessionId`) or `judge`.' });
  }
  if (perConversation && monitor === undefined && sessionId === undefined) {
    throw new InvalidOptionError({ parameter: 'sessionId', value: sessionId, fix: 'Per-conversation sentinels need to know each call\'s conversation: pass sessionId, or a monitor whose panoptesMiddleware wraps the model.' });
  }
  const failOpen = createFailOpen(logger);
  if (monitor && sentinel) connectWorkflowStates(monitor, sentinel); // the workflow's states as `said(State)`

  const rules = sentinel === undefined ? {} : { sentinel };
  const sessionOf = (options: ToolExecutionOptions, lookup: { keep?: boolean } = {}): string | undefined => {
    if (monitor === undefined && !perConversation && (judge === undefined || sessionId === undefined)) return undefined;
    const id = sessionOfCall(options, sessionId, monitor, lookup);
    if (id === undefined && monitor !== undefined) {
      failOpen.note('session lookup', `No session is known for tool call '${options.toolCallId}', so the monitor did not check it before it ran: pass sessionId, or wrap the model with panoptesMiddleware on the same monitor.`);
    }
    return id;
  };

  // The judge's outcome for calls judged in `needsApproval` (to decide whether to ask), by tool call id, for `execute`.
  const judgedEarly = new Map<string, JudgedOutcome>();

  /** The guards' and the judge's verdict on a call (recorded in the monitor's trace): its refusal, or `undefined` when it may run. */
  async function refusalOf(call: ToolCall, id: string | undefined, options: ToolExecutionOptions): Promise<Refusal | undefined> {
    const userMessages = sentinel === undefined ? undefined : userTexts(options.messages);
    const conversation = sentinel === undefined ? undefined : conversationTurns(options.messages);
    const judged = judgedEarly.get(options.toolCallId);
    judgedEarly.delete(options.toolCallId);
    // The conversation is converted for the judge only when a rubric applies to this call.
    const judging = judge === undefined || judge.applicable('tool_call', { call }).length === 0 ? {} : { judge, messages: chatMessagesOf(options.messages), approved: wasApproved(options.messages, options.toolCallId), judged };
    const decision =
      id === undefined || monitor === undefined
        ? await guardJudgedToolCall(call, { ...rules, ...judging, sessionId: id, userMessages, conversation })
        : await guardJudgedToolCall(call, {
            ...rules,
            ...judging,
            userMessages,
            conversation,
            monitor,
            sessionId: id,
            onMonitorError: (error) => failOpen.note('The pre-emptive check (monitor.beforeTool)', 'The pre-emptive check (monitor.beforeTool) failed; the call goes on unchanged.', error),
          });
    if (decision.allowed) {
      if (decision.judged && decision.judged.warnings.length > 0) warned(call.name, options.toolCallId, decision.judged.warnings);
      return undefined;
    }
    return decision.by === 'judge' ? decision.refusal : toolRefusal(call.name, decision);
  }

  const warned = (tool: string, toolCallId: string, warnings: string[]) => {
    try {
      if (onJudgeWarning) onJudgeWarning({ tool, toolCallId, warnings });
      else logger.warn(`[panoptes] ${tool} (call ${toolCallId}) ran with a judge's warning: ${warnings.join('; ')}`);
    } catch (error) {
      failOpen.note('onJudgeWarning', 'A judge warning could not be reported (onJudgeWarning threw); the call went on.', error);
    }
  };

  /**
   * Before anyone is asked to approve a call the guards allow: whether the judge asks about it (then the user is
   * asked). Its outcome is kept for `execute`, which refuses a call it denies without judging it again. Only where
   * asking is possible (`approvals`, or the tool's own `needsApproval`).
   */
  async function judgeAsks(name: string, input: unknown, options: ToolExecutionOptions): Promise<boolean> {
    if (judge === undefined || judge.applicable('tool_call', { call: toCoreToolCall(options.toolCallId, name, input) }).length === 0) return false;
    const outcome = await judgeToolCall(judge, { call: toCoreToolCall(options.toolCallId, name, input), messages: chatMessagesOf(options.messages), ...optionalSession(sessionOf(options, { keep: true })) });
    // An approved call comes back here to confirm it still needs approval: the judge's question still stands (cached).
    if (!wasApproved(options.messages, options.toolCallId)) remember(judgedEarly, options.toolCallId, outcome);
    return outcome.decision === 'ask';
  }

  // Calls decided in `needsApproval`, by tool call id, for their `execute`: the refusal it throws, or ALLOWED for a call
  // that check let in (its workflow state is entered; a second check would enter it again).
  const decided = new Map<string, Refusal | typeof ALLOWED>();

  /**
   * Before anyone is asked to approve a call: its refusal when the guards will refuse it, decided and recorded now, so
   * the host runs it at once and `execute` throws the refusal; `undefined` for a call the guards allow, which is
   * checked (and recorded) when it runs, after the approval. Only a call the monitor's preview or the rules refuse is
   * put to the real check: a preview uses nothing up, and an approval may come long after (or never).
   */
  async function refusedBeforeApproval(name: string, input: unknown, options: ToolExecutionOptions): Promise<Refusal | undefined> {
    const call = toCoreToolCall(options.toolCallId, name, input);
    const id = sessionOf(options, { keep: true }); // `execute` takes it
    const byWorkflow = monitor !== undefined && id !== undefined && (await workflowWouldRefuse(monitor, options.toolCallId));
    if (!byWorkflow && !(await rulesWouldRefuse(call, id, options))) return undefined;
    const refusal = await refusalOf(call, id, options);
    remember(decided, options.toolCallId, refusal ?? ALLOWED);
    return refusal;
  }

  /** The rules alone, nothing recorded: a refusal no approval can lift (with `approvals`, the policy's confirmations can). */
  async function rulesWouldRefuse(call: ToolCall, id: string | undefined, options: ToolExecutionOptions): Promise<boolean> {
    if (sentinel === undefined) return false;
    const decision = await guardToolCall(call, { sentinel, sessionId: id, userMessages: userTexts(options.messages), conversation: conversationTurns(options.messages) });
    return !decision.allowed && !(approvals && decision.check !== undefined && needsOnlyApproval(decision.check));
  }

  /** What `execute` does first: the refusal decided before approval, else the check of the call as it runs now. */
  async function refusalBeforeRun(name: string, input: unknown, options: ToolExecutionOptions): Promise<Refusal | undefined> {
    const early = decided.get(options.toolCallId);
    decided.delete(options.toolCallId);
    if (early !== undefined && early !== ALLOWED) return early;
    await approval?.recordIfApproved(name, input, options);
    if (early === ALLOWED) return undefined;
    // Kept: recording the result after the call runs asks for the session again, and forgets it then.
    return refusalOf(toCoreToolCall(options.toolCallId, name, input), sessionOf(options, { keep: true }), options);
  }

  // What became of a call that ran, for the sentinel: a write's confirmation consumed and its data invalidated, a
  // data tool's result recorded as facts. Only with a sentinel, and only for calls the guard let through.
  const resultOf: ResultRecorder | undefined =
    sentinel === undefined
      ? undefined
      : (name, input, options, outcome) =>
          recordToolResult(toCoreToolCall(options.toolCallId, name, input), outcome, {
            sentinel,
            sessionId: perConversation ? sessionOf(options) : undefined,
            onError: (error) => failOpen.note('sentinel.recordResult', 'Recording a tool result for the policy failed; its facts expire with their TTL instead.', error),
          });

  // Native approvals need the session before the call runs (needsApproval), so they take it from `sessionId` only.
  const approvalSession = (options: ToolExecutionOptions) => (typeof sessionId === 'function' ? sessionId(options) : sessionId);
  const approval: Approval | undefined =
    approvals && sentinel !== undefined
      ? {
          needed: (name, input, options) => policyNeedsApproval(sentinel, approvalSession(options), name, input),
          recordIfApproved: async (name, input, options) => {
            if (!wasApproved(options.messages, options.toolCallId)) return;
            await recordApprovalOf(sentinel, approvalSession(options), name, input).catch((error: unknown) =>
              failOpen.note('recording an approval', 'Recording a tool approval for the policy failed; the call is checked without it.', error),
            );
          },
        }
      : undefined;

  const guard: Guard = { refusalBeforeRun, refusedBeforeApproval, resultOf, approval, judgeAsks: judge === undefined ? undefined : judgeAsks, judgeAsksAlways: approvals };
  const guarded: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools)) guarded[name] = guardTool(name, tool, guard);
  return guarded as TOOLS;
}

type AnyTool = ToolSet[string];
/** A refusal by the monitor or the sentinel, or by the judge. */
type Refusal = ToolRefusal | JudgedToolRefusal;
const optionalSession = (sessionId: string | undefined) => (sessionId === undefined ? {} : { sessionId });
interface Approval {
  needed(name: string, input: unknown, options: ToolExecutionOptions): Promise<boolean>;
  recordIfApproved(name: string, input: unknown, options: ToolExecutionOptions): Promise<void>;
}
type ResultRecorder = (name: string, input: unknown, options: ToolExecutionOptions, outcome: { ok: true; result: unknown } | { ok: false }) => void;
type NeedsApprovalOptions = { toolCallId: string; messages: ModelMessage[]; experimental_context?: unknown };
interface Guard {
  refusalBeforeRun(name: string, input: unknown, options: ToolExecutionOptions): Promise<Refusal | undefined>;
  refusedBeforeApproval(name: string, input: unknown, options: ToolExecutionOptions): Promise<Refusal | undefined>;
  resultOf: ResultRecorder | undefined;
  approval: Approval | undefined;
  /** With a judge: whether it asks about a call the guards allow (so the user is asked through the tool approval). */
  judgeAsks: ((name: string, input: unknown, options: ToolExecutionOptions) => Promise<boolean>) | undefined;
  /** `approvals` is on: every tool may ask; else only a tool with its own `needsApproval` does. */
  judgeAsksAlways: boolean;
}

const ALLOWED = 'allowed';
/** Calls decided before approval and kept for their `execute`; one approved much later (or denied) is forgotten past this. */
const DECIDED_LIMIT = 10_000;

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.set(key, value);
  if (map.size > DECIDED_LIMIT) map.delete(map.keys().next().value!);
}

function guardTool(name: string, tool: AnyTool, { refusalBeforeRun, refusedBeforeApproval, resultOf, approval, judgeAsks, judgeAsksAlways }: Guard): AnyTool {
  const original = tool.execute;
  if (typeof original !== 'function') return tool;
  const execute = original.bind(tool) as (input: unknown, options: ToolExecutionOptions) => unknown;
  // The host treats an execute that returns an async iterable as a streaming tool (preliminary results), so a
  // streaming tool stays a generator and any other stays a plain async function.
  const guardedExecute = isAsyncGeneratorFunction(original)
    ? async function* guardedStreamingExecute(input: unknown, options: ToolExecutionOptions) {
        const refusal = await refusalBeforeRun(name, input, options);
        if (refusal !== undefined) throw new ToolCallRefusedError(refusal);
        // The last value a streaming tool yields is its output, as the host reads it.
        let last: unknown;
        try {
          for await (const value of execute(input, options) as AsyncIterable<unknown>) yield (last = value);
        } catch (error) {
          resultOf?.(name, input, options, { ok: false });
          throw error;
        }
        resultOf?.(name, input, options, { ok: true, result: last });
      }
    : async function guardedExecute(input: unknown, options: ToolExecutionOptions) {
        const refusal = await refusalBeforeRun(name, input, options);
        if (refusal !== undefined) throw new ToolCallRefusedError(refusal);
        let output: unknown;
        try {
          output = await execute(input, options);
        } catch (error) {
          resultOf?.(name, input, options, { ok: false }); // a failed write changed nothing
          throw error;
        }
        resultOf?.(name, input, options, { ok: true, result: output });
        return output;
      };
  const own = tool.needsApproval;
  const ownAsks = own !== undefined && own !== false;
  // Where the judge's questions go: the tool approval when the app asks through it (for every tool, or this one).
  const judgeQuestions = judgeAsks !== undefined && (judgeAsksAlways || ownAsks) ? judgeAsks : undefined;
  if (!approval && !judgeQuestions && !ownAsks) return { ...tool, execute: guardedExecute } as AnyTool;
  const needsApproval = async function guardedNeedsApproval(input: unknown, options: NeedsApprovalOptions) {
    const executionOptions = options as ToolExecutionOptions;
    // The host asks again when an approved call comes back to run (to check it still needs approval): that call is
    // checked when it runs, so it is not decided here a second time.
    if (!wasApproved(options.messages, options.toolCallId) && (await refusedBeforeApproval(name, input, executionOptions)) !== undefined) return false;
    const asked = typeof own === 'function' ? await (own as (input: unknown, options: unknown) => boolean | PromiseLike<boolean>)(input, options) : own === true;
    return asked || (approval !== undefined && (await approval.needed(name, input, executionOptions))) || (judgeQuestions !== undefined && (await judgeQuestions(name, input, executionOptions)));
  };
  return { ...tool, execute: guardedExecute, needsApproval } as AnyTool;
}

function isAsyncGeneratorFunction(fn: unknown): boolean {
  return typeof fn === 'function' && fn.constructor?.name === 'AsyncGeneratorFunction';
}

/** The text of the user's messages, for strict mode's `given` parameters. */
function userTexts(messages: readonly ModelMessage[] | undefined): string[] {
  return (messages ?? []).flatMap((message) => {
    if (message.role !== 'user') return [];
    if (typeof message.content === 'string') return [message.content];
    return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
  });
}

/** The user's and the assistant's texts, in order (tool calls and results left out): what a grounded yes is read from. */
function conversationTurns(messages: readonly ModelMessage[] | undefined): ConversationTurn[] {
  return (messages ?? []).flatMap((message): ConversationTurn[] => {
    if (message.role !== 'user' && message.role !== 'assistant') return [];
    const text = typeof message.content === 'string' ? message.content : message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
    return text === '' ? [] : [{ role: message.role, text }];
  });
}
