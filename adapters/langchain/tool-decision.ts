import { ToolMessage, type AIMessage, type BaseMessage } from '@langchain/core/messages';
import {
  andThen,
  attempt,
  guardToolCallSyncFirst,
  recordToolResult,
  type AfterModelResult,
  type ConversationTurn,
  type MaybePromise,
  type Monitor,
  type SentinelSource,
  type ToolCall,
  type ToolCallDecision,
  type ToolGuard,
  type ToolOutcome,
} from '../../src/index.js';
import type { FailOpen } from './fail-open.js';
import type { RefusedCall } from './refused-calls.js';
import { toToolCall } from './translate.js';

/** What guards a tool call in the LangChain hosts: the workflow monitor, the policy sentinel, or both. */
export interface ToolGuards {
  monitor?: Monitor | undefined;
  sentinel?: SentinelSource | undefined;
  /** The conversation: the monitor's session and, with per-conversation sentinels, the sentinel's. A call without one is not checked by the monitor. */
  sessionId?: string | undefined;
  /** The conversation's messages, when the host has them: the user's words count for strict mode's `given` parameters. */
  messages?: readonly BaseMessage[] | undefined;
  /** A check once the rules allow the call (the judge), inside the monitor's guard: a call it refuses never enters the trace. */
  afterRules?: ToolGuard | undefined;
}

/**
 * The core's verdict on one tool call, at once when nothing waits: `guardToolCall` asks the workflow, then the rules as its guard, so a call the
 * workflow refuses never reaches the rules and a call the rules refuse never enters the trace; it never puts the
 * sentinel's own policy tools to the rules, and when the monitor throws the rules decide alone. The adapter only logs
 * that failure, once, through `failOpen`.
 */
export function decideToolCall(call: ToolCall, { monitor, sentinel, sessionId, messages, afterRules }: ToolGuards, failOpen: FailOpen): MaybePromise<ToolCallDecision> {
  const userMessages = sentinel && messages ? userTexts(messages) : undefined;
  const conversation = sentinel && messages ? conversationTurns(messages) : undefined;
  if (!monitor || sessionId === undefined) return guardToolCallSyncFirst(call, { sentinel, sessionId, userMessages, conversation, afterRules });
  const report = (error: unknown) => void failOpen('monitor.beforeTool', () => Promise.reject(error), undefined);
  return guardToolCallSyncFirst(call, { monitor, sentinel, sessionId, onMonitorError: report, userMessages, conversation, afterRules });
}

/** What {@link refusalsOfAnswer} decided: the calls refused, and the ids of calls its check let in after all. */
export interface AnswerRefusals {
  refused: RefusedCall[];
  /** Calls whose state the check entered (the monitor's preview had said no): checking them again would enter it twice. */
  allowed: string[];
}

/**
 * The calls of a model's answer the guards refuse, decided as soon as the model answers, before anyone is asked to
 * approve them. A call is put to the real check (`decideToolCall`, recorded in the trace) only when the monitor's
 * preview (`afterModel`'s `toolPreviews`, nothing used up) or the rules alone (nothing recorded) refuse it; every
 * other call is checked when it runs, since a human may edit it or approve it much later (a preview
 * assumes the answer's earlier calls allowed; the check when a call runs has the last word). A check that
 * fails or pauses (a data tool that asks a human through a LangGraph interrupt) leaves the call to that check too:
 * paused inside the model's node, the run would call the model again when it resumes. Only calls of the tools the
 * request offered (`offered`, when known) are decided: a structured-output call is no tool call, and a call of an
 * unknown tool is answered by the tool node.
 */
export function refusalsOfAnswer(answer: AIMessage, guards: ToolGuards, classified: AfterModelResult | undefined, offered: readonly string[] | undefined, failOpen: FailOpen): MaybePromise<AnswerRefusals> {
  const decided: AnswerRefusals = { refused: [], allowed: [] };
  const decidable = (call: { id?: string | undefined; name: string }) => call.id !== undefined && call.id !== '' && (offered === undefined || offered.includes(call.name));
  const calls = (answer.tool_calls ?? []).flatMap((call, index) => (decidable(call) ? [{ call: { ...call, id: call.id! }, index }] : []));
  if (calls.length === 0) return decided;
  const previews = classified?.toolPreviews;
  const { sentinel, sessionId } = guards;
  const userMessages = sentinel && guards.messages ? userTexts(guards.messages) : undefined;
  const conversation = sentinel && guards.messages ? conversationTurns(guards.messages) : undefined;
  const rulesRefuse = (call: ToolCall): MaybePromise<boolean> =>
    sentinel === undefined ? false : attempt(() => guardToolCallSyncFirst(call, { sentinel, sessionId, userMessages, conversation }), (decision) => !decision.allowed, () => false);
  const decide = (position: number): MaybePromise<AnswerRefusals> => {
    const entry = calls[position];
    if (!entry) return decided;
    const call = toToolCall(entry.call);
    const byWorkflow = previews?.some((preview) => preview.toolCallId === call.id && preview.preview.refuse) === true;
    const checked = andThen(byWorkflow || rulesRefuse(call), (refuses) =>
      refuses
        ? attempt(
            () => decideToolCall(call, guards, failOpen),
            (decision) => void (decision.allowed ? decided.allowed.push(entry.call.id) : decided.refused.push({ ...entry, reason: decision.reason })),
            () => undefined,
          )
        : undefined,
    );
    return andThen(checked, () => decide(position + 1));
  };
  return decide(0);
}

/** The text of the user's messages (human messages, text parts only). */
function userTexts(messages: readonly BaseMessage[]): string[] {
  return messages.flatMap((message) => (message.getType() === 'human' ? [message.text] : []));
}

/** The user's and the assistant's texts, in order (tool calls and results left out): what a grounded yes is read from. */
function conversationTurns(messages: readonly BaseMessage[]): ConversationTurn[] {
  return messages.flatMap((message): ConversationTurn[] => {
    const type = message.getType();
    if (type === 'human') return [{ role: 'user', text: message.text }];
    return type === 'ai' && message.text !== '' ? [{ role: 'assistant', text: message.text }] : [];
  });
}

/**
 * The tool result the model reads instead of the tool's output: an error `ToolMessage` answering its call, as
 * LangChain's own tool-call limit does, so the model reads why and chooses again. Its content is the reason alone.
 */
export function refusalMessage(call: ToolCall, reason: string, { id }: { id?: string } = {}): ToolMessage {
  return new ToolMessage({ content: reason, tool_call_id: call.id ?? '', name: call.name, status: 'error', ...(id === undefined ? {} : { id }) });
}

/**
 * Runs an allowed tool call and tells the sentinel what became of it (`recordToolResult`): an error `ToolMessage` or
 * a throw is a failure (nothing consumed or invalidated), anything else a success whose content is the result. The
 * tool's result or error goes back to the host unchanged.
 */
export function runRecorded<R>(
  call: ToolCall,
  run: () => MaybePromise<R>,
  { sentinel, sessionId }: Pick<ToolGuards, 'sentinel' | 'sessionId'>,
  onError: (error: unknown) => void,
): MaybePromise<R> {
  if (!sentinel) return run();
  const record = (outcome: ToolOutcome) => recordToolResult(call, outcome, { sentinel, sessionId, onError });
  return attempt(
    run,
    (result) => (record(outcomeOf(result)), result),
    (error) => {
      record({ ok: false });
      throw error;
    },
  );
}

/** A LangChain tool's answer as an outcome: an error ToolMessage failed; a message's content, or a plain value, is the result. */
function outcomeOf(result: unknown): ToolOutcome {
  if (ToolMessage.isInstance(result)) return result.status === 'error' ? { ok: false } : { ok: true, result: result.content };
  return { ok: true, result };
}
