import type { BaseMessage } from '@langchain/core/messages';
import { getConfig } from '@langchain/langgraph';
import { conversationSessionsOf, type AssistantTurn, type ChatMessage } from '../../src/index.js';
import { sessionIdFrom } from './session-id.js';
import { toChatMessages } from './translate.js';

/**
 * Finds the session of each `createAgent` hook: the option, `configurable.thread_id`,
 * `metadata.session_id`; a run that names none is placed by its conversation, in the registry of `owner` (the
 * monitor, else the sentinel): the model hook continues the session whose recorded history the thread's messages
 * carry (or starts one), and records each answer; a tool hook finds the session whose answer asked for its call.
 */
export function createSessionFinder(option: string | undefined, owner: object) {
  const conversations = conversationSessionsOf(owner);
  const named = (configurable: { thread_id?: unknown } | undefined): string | undefined =>
    // The run's metadata is read only when nothing before it names the session: every hook asks.
    sessionIdFrom(option) ?? sessionIdFrom(configurable?.thread_id) ?? sessionIdFrom(currentMetadata()?.session_id);

  return {
    /** The session of a model call: named by the run, else placed by its conversation (`thread`, converted only then). */
    ofModelCall(configurable: { thread_id?: unknown } | undefined, thread: () => ChatMessage[]): string {
      return named(configurable) ?? conversations.sessionOf(thread());
    },
    /** Records the model's answer, so the next request that carries it continues the session. */
    answered(sessionId: string, turn: AssistantTurn): void {
      conversations.answered(sessionId, turn);
    },
    /**
     * The session of a tool call: named by the run, else the one whose answer asked for it (by the call's id, else by
     * the answer the thread ends with, placed now if nobody recorded it).
     */
    ofToolCall(configurable: { thread_id?: unknown } | undefined, toolCallId: string | undefined, messages: readonly BaseMessage[]): string {
      return named(configurable) ?? (toolCallId === undefined ? undefined : conversations.sessionOfToolCall(toolCallId)) ?? conversations.sessionOfAnswer(toChatMessages(messages));
    },
    /** The session of a finished run: named by the run, else the one whose last answer the thread ends with. */
    ofRun(configurable: { thread_id?: unknown } | undefined, messages: readonly BaseMessage[]): string | undefined {
      return named(configurable) ?? conversations.sessionEndingWith(toChatMessages(messages));
    },
  };
}

/** The run's metadata, read from LangGraph's async context: hooks receive `configurable` but not `metadata`. */
function currentMetadata(): Record<string, unknown> | undefined {
  try {
    return getConfig()?.metadata;
  } catch {
    return undefined; // outside a LangGraph run
  }
}
