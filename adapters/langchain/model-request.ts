import type { BaseMessage, SystemMessage } from '@langchain/core/messages';
import type { ChatMessage } from '../../src/index.js';
import { fromChatMessages, hostOf, textOf, toChatMessage, toChatMessages } from './translate.js';

/** The parts of a `createAgent` model request that Panoptes reads and edits. */
export interface ConversationRequest {
  systemMessage: SystemMessage;
  messages: BaseMessage[];
}

/**
 * The whole conversation the model will read, in the core's form: the agent's system message (when it has text:
 * `createAgent` sends no empty one) followed by the thread's messages (`thread`, when the caller converted them already).
 */
export function requestToChatMessages(request: ConversationRequest, thread: ChatMessage[] = toChatMessages(request.messages)): ChatMessage[] {
  return textOf(request.systemMessage.content) === '' ? thread : [toChatMessage(request.systemMessage), ...thread];
}

/**
 * Puts the core's edited conversation back into the request. The system message travels apart from the thread in
 * `createAgent`, so the first message goes back to `systemMessage` when it is the agent's (or one the core created
 * because there was none); everything else is the request's `messages`. Only this call's request changes: the
 * thread's stored history never sees a correction.
 */
export function withChatMessages<Request extends ConversationRequest>(request: Request, edited: readonly ChatMessage[]): Request {
  const original = textOf(request.systemMessage.content);
  const [first, ...rest] = edited;
  // The agent's own system message, or one the core created because there was none (it has no host message).
  const isAgentSystem = first?.role === 'system' && (original === '' ? hostOf(first) === undefined : hostOf(first) === request.systemMessage);
  if (!first || !isAgentSystem) return { ...request, messages: fromChatMessages(edited) };
  const systemMessage = first.content === original ? request.systemMessage : request.systemMessage.concat(appendedText(original, first.content));
  return { ...request, systemMessage, messages: fromChatMessages(rest) };
}

/**
 * Appends a block of text to the system message for this call, e.g. the fact summary. Content blocks and cache
 * markers of the original stay as they were.
 */
export function withSystemText<Request extends ConversationRequest>(request: Request, text: string): Request {
  const separator = textOf(request.systemMessage.content) === '' ? '' : '\n\n';
  return { ...request, systemMessage: request.systemMessage.concat(`${separator}${text}`) };
}

/** What the core appended to the system text, so it is concatenated onto the original message and its blocks. */
function appendedText(before: string, after: string): string {
  return after.startsWith(before) ? after.slice(before.length) : `\n\n${after}`;
}
