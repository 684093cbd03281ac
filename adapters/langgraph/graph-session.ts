import type { BaseMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { conversationSessionsOf, type AssistantTurn } from '../../src/index.js';
import { namedSessionId } from '../langchain/session-id.js';
import { toChatMessages } from '../langchain/translate.js';

/**
 * The session of a node run: the option, the thread's `configurable.thread_id`,
 * `metadata.session_id`; a run that names none (a graph without a checkpointer or thread id) is placed by its
 * conversation in the registry of `owner` (the monitor, else the sentinel): the session whose last recorded answer
 * the messages in graph state carry. `undefined` when the run names none and no answer of the messages is known.
 * @example
 * const sessionId = graphSessionId(undefined, state.messages, config, monitor); // 'ticket-1042' for thread_id 'ticket-1042'
 * const report = await monitor.report(sessionId!);
 */
export function graphSessionId(option: string | undefined, messages: readonly BaseMessage[], config: LangGraphRunnableConfig | undefined, owner: object): string | undefined {
  return namedSessionId(option, config) ?? conversationSessionsOf(owner).sessionEndingWith(toChatMessages(messages));
}

/** The session of a model node's call: named by the run, else the one whose recorded history the thread continues (or a new one). */
export function modelCallSessionId(option: string | undefined, messages: readonly BaseMessage[], config: LangGraphRunnableConfig | undefined, owner: object): string {
  return namedSessionId(option, config) ?? conversationSessionsOf(owner).sessionOf(toChatMessages(messages));
}

/** Records a model node's answer, so the next call whose thread carries it continues the session. */
export function answeredInSession(owner: object, sessionId: string, turn: AssistantTurn): void {
  conversationSessionsOf(owner).answered(sessionId, turn);
}

/**
 * The session of a tool call: named by the run, else the one whose answer asked for it (by the call's id, else by the
 * answer the thread ends with, placed now if nobody recorded it: a graph whose model node Panoptes does not wrap).
 */
export function toolCallSessionId(option: string | undefined, toolCallId: string | undefined, messages: readonly BaseMessage[], config: LangGraphRunnableConfig | undefined, owner: object): string {
  const named = namedSessionId(option, config);
  if (named !== undefined) return named;
  const conversations = conversationSessionsOf(owner);
  return (toolCallId === undefined ? undefined : conversations.sessionOfToolCall(toolCallId)) ?? conversations.sessionOfAnswer(toChatMessages(messages));
}
