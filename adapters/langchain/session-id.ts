/**
 * Where the LangChain adapters find a session id. The last resort, a hash of the conversation's
 * opening, is the core's `conversationSessionId`.
 */

/** Where an adapter looks for a session id, in order. Empty strings count as absent. */
export interface SessionIdSources {
  /** The `sessionId` option given to the adapter. */
  option?: string | undefined;
  /** `configurable.thread_id` of the run. */
  threadId?: unknown;
  /** `metadata.session_id` of the run. */
  metadataSessionId?: unknown;
  /** Computes the last resort, a hash of the conversation's opening; only called when nothing above is set. */
  fallback: () => string;
}

/**
 * The session id of a call: the adapter's option, then the run's `configurable.thread_id`, then its
 * `metadata.session_id`, then the fallback hash.
 * @example
 * resolveSessionId({ threadId: 't1', fallback: () => conversationSessionId(toChatMessages(messages)) }) // 't1'
 */
export function resolveSessionId({ option, threadId, metadataSessionId, fallback }: SessionIdSources): string {
  return sessionIdFrom(option) ?? sessionIdFrom(threadId) ?? sessionIdFrom(metadataSessionId) ?? fallback();
}

/**
 * A candidate as a session id: a non-empty string as it is, a number as its digits, anything else `undefined`.
 * @example
 * sessionIdFrom(7) // '7'
 * sessionIdFrom('') // undefined
 */
export function sessionIdFrom(candidate: unknown): string | undefined {
  if (typeof candidate === 'string') return candidate === '' ? undefined : candidate;
  return typeof candidate === 'number' ? String(candidate) : undefined;
}

/**
 * The session a tool run names without hashing anything: the adapter's option, then the run's
 * `configurable.thread_id`, then its `metadata.session_id`. A tool never sees the system prompt, so it cannot
 * compute the last resort of {@link resolveSessionId}.
 * @example
 * namedSessionId(undefined, { configurable: { thread_id: 't1' } }) // 't1'
 */
export function namedSessionId(option: string | undefined, config: { configurable?: { thread_id?: unknown }; metadata?: { session_id?: unknown } } | undefined): string | undefined {
  return sessionIdFrom(option) ?? sessionIdFrom(config?.configurable?.thread_id) ?? sessionIdFrom(config?.metadata?.session_id);
}
