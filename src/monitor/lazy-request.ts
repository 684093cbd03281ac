import type { ChatMessage } from '../messages/index.js';
import type { ModelRequest } from './types.js';

/**
 * A request for `beforeModel` whose messages are built on first read, at most once. The monitor reads them only when
 * something is due on the call, so an adapter that must convert its host's messages pays for it only then.
 * @example
 * const before = await monitor.beforeModel(sessionId, lazyModelRequest(() => toChatMessages(request.messages)));
 * const messages = before.action === 'proceed' && before.interventions.length > 0 ? fromChatMessages(before.messages) : request.messages;
 */
export function lazyModelRequest(build: () => ChatMessage[]): ModelRequest {
  let messages: ChatMessage[] | undefined;
  return {
    get messages() {
      return (messages ??= build());
    },
  };
}
