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

// A class rather than an object literal with a getter: a literal's accessor is made anew on every call (about 0.4 us).
// `messages` is still an own, enumerable accessor, defined from one shared descriptor (about 0.1 us), so a request
// that a listener spreads or logs with JSON.stringify keeps its messages; a getter on the prototype would be dropped.
class LazyModelRequest implements ModelRequest {
  declare readonly messages: ChatMessage[];
  #build: (() => ChatMessage[]) | undefined;
  #messages: ChatMessage[] | undefined;
  static readonly #accessor: PropertyDescriptor = {
    get(this: LazyModelRequest) {
      if (this.#messages === undefined) {
        this.#messages = this.#build!();
        this.#build = undefined; // built once: what it closed over can go
      }
      return this.#messages;
    },
    enumerable: true,
  };

  constructor(build: () => ChatMessage[]) {
    this.#build = build;
    Object.defineProperty(this, 'messages', LazyModelRequest.#accessor);
  }
}
