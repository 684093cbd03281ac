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
  return new LazyModelRequest(build);
}

// A class rather than an object literal with a getter: a literal's accessor is defined anew on every call, which
// costs microseconds on each model call of an agent's run; a class's getter is defined once, on its prototype.
class LazyModelRequest implements ModelRequest {
  #build: (() => ChatMessage[]) | undefined;
  #messages: ChatMessage[] | undefined;

  constructor(build: () => ChatMessage[]) {
    this.#build = build;
  }

  get messages(): ChatMessage[] {
    if (this.#messages === undefined) {
      this.#messages = this.#build!();
      this.#build = undefined; // built once: what it closed over can go
    }
    return this.#messages;
  }
}
