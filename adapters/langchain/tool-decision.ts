import { ToolMessage, type BaseMessage } from '@langchain/core/messages';
import {
  attempt,
  guardToolCallSyncFirst,
  recordToolResult,
  type MaybePromise,
  type Monitor,
  type SentinelSource,
  type ToolCall,
  type ToolCallDecision,
  type ToolOutcome,
} from '../../src/index.js';
import type { FailOpen } from './fail-open.js';

/** What guards a tool call in the LangChain hosts: the workflow monitor, the policy sentinel, or both. */
export interface ToolGuards {
  monitor?: Monitor | undefined;
  sentinel?: SentinelSource | undefined;
  /** The conversation: the monitor's session and, with per-conversation sentinels, the sentinel's. A call without one is not checked by the monitor. */
  sessionId?: string | undefined;
  /** The conversation's messages, when the host has them: the user's words count for strict mode's `given` parameters. */
  messages?: readonly BaseMessage[] | undefined;
}

/**
 * The core's verdict on one tool call, at once when nothing waits: `guardToolCall` asks the workflow, then the rules as its guard, so a call the
 * workflow refuses never reaches the rules and a call the rules refuse never enters the trace; it never puts the
 * sentinel's own policy tools to the rules, and when the monitor throws the rules decide alone. The adapter only logs
 * that failure, once, through `failOpen`.
 */
export function decideToolCall(call: ToolCall, { monitor, sentinel, sessionId, messages }: ToolGuards, failOpen: FailOpen): MaybePromise<ToolCallDecision> {
  const userMessages = sentinel && messages ? userTexts(messages) : undefined;
  if (!monitor || sessionId === undefined) return guardToolCallSyncFirst(call, { sentinel, sessionId, userMessages });
  const report = (error: unknown) => void failOpen('monitor.beforeTool', () => Promise.reject(error), undefined);
  return guardToolCallSyncFirst(call, { monitor, sentinel, sessionId, onMonitorError: report, userMessages });
}

/** The text of the user's messages (human messages, text parts only). */
function userTexts(messages: readonly BaseMessage[]): string[] {
  return messages.flatMap((message) => (message.getType() === 'human' ? [message.text] : []));
}

/**
 * The tool result the model reads instead of the tool's output: an error `ToolMessage` answering its call, as
 * LangChain's own tool-call limit does, so the model reads why and chooses again.
 */
export function refusalMessage(call: ToolCall, reason: string): ToolMessage {
  return new ToolMessage({ content: reason, tool_call_id: call.id ?? '', name: call.name, status: 'error' });
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
