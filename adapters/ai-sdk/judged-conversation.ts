/**
 * `conversation` rubrics in the middleware: each answer counts a turn of its session, a due rubric judges the
 * conversation in the background (`createConversationJudge`), and what it found goes into the session's next call.
 * @module
 */
import { appendToSystem, createConversationJudge, type AssistantTurn, type ChatMessage, type Judge, type Logger } from '../../src/index.js';
import type { CallOptions } from './host-types.js';
import { toChatMessages, withInterventions } from './translate.js';

/** Sessions a turn rubric warned about since their last answer are kept at most; the oldest are dropped past it. */
const WARNED_LIMIT = 10_000;

/** The conversation judge's side of the middleware. */
export interface ConversationReview {
  /** A turn rubric warned about the session's answer: its conversation rubrics are due with this answer. */
  warned(sessionId: string | undefined): void;
  /** After an answer is settled (what the caller gets): counts the turn, and starts a due judgment. Returns at once. */
  answered(sessionId: string | undefined, params: CallOptions, turn: AssistantTurn): void;
  /** The call's params with the review the last judgment left for the session, if any (used up). */
  withGuidance(sessionId: string | undefined, params: CallOptions): CallOptions;
}

/** The review of the judge's `conversation` rubrics; `undefined` when it has none (nothing to count). */
export function createConversationReview(judge: Judge, { logger }: { logger: Logger }): ConversationReview | undefined {
  if (!judge.rubrics.some((rubric) => rubric.scope === 'conversation')) return undefined;
  const conversation = createConversationJudge(judge, { logger });
  const warned = new Set<string>();
  return {
    warned(sessionId) {
      if (sessionId === undefined) return;
      warned.delete(sessionId);
      warned.add(sessionId);
      if (warned.size > WARNED_LIMIT) warned.delete(warned.values().next().value!);
    },
    answered(sessionId, params, turn) {
      if (sessionId === undefined) return; // a judgment's guidance could reach no next call
      const wasWarned = warned.delete(sessionId);
      // A getter: the prompt is converted only when a rubric is due.
      const messages = (): ChatMessage[] => [...toChatMessages(params.prompt).messages, { role: 'assistant', content: turn.content, ...(turn.toolCalls.length > 0 ? { toolCalls: turn.toolCalls } : {}) }];
      conversation.turn(sessionId, { messages, warned: wasWarned });
    },
    withGuidance(sessionId, params) {
      const note = sessionId === undefined ? undefined : conversation.takeGuidance(sessionId);
      if (note === undefined) return params;
      const converted = toChatMessages(params.prompt);
      return { ...params, prompt: withInterventions(params.prompt, converted, appendToSystem(converted.messages, note)) };
    },
  };
}
