/**
 * Session ids for hosts that do not name one (DESIGN.md section 7). Framework-free and free of `node:crypto`, so the
 * adapters keep working where LangChain runs in a browser or an edge runtime.
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
 * resolveSessionId({ threadId: 't1', fallback: () => conversationSessionId('', 'hi') }) // 't1'
 */
export function resolveSessionId({ option, threadId, metadataSessionId, fallback }: SessionIdSources): string {
  for (const candidate of [option, threadId, metadataSessionId]) {
    if (typeof candidate === 'string' && candidate !== '') return candidate;
    if (typeof candidate === 'number') return String(candidate);
  }
  return fallback();
}

/**
 * A stable id for a conversation nobody named: a 64-bit hash of its system prompt and first user message, so every
 * call of one conversation lands in the same session and two conversations that open differently do not. Two
 * conversations that open with the same words share a session: pass a thread id when that can happen.
 * @example
 * conversationSessionId('You are a support agent.', 'Refund my order.') // 'panoptes-' followed by 16 hex digits
 */
export function conversationSessionId(systemPrompt: string, firstUserMessage: string): string {
  // The separator cannot occur in either part's length prefix, so ('ab', 'c') and ('a', 'bc') hash apart.
  const text = `${systemPrompt.length}:${systemPrompt}\u0000${firstUserMessage.length}:${firstUserMessage}`;
  return `panoptes-${fnv1a32(text, 0x811c9dc5)}${fnv1a32(text, 0x01000193 ^ 0x9e3779b9)}`;
}

/** FNV-1a over UTF-16 code units; two runs with different offsets give 64 bits, plenty for session ids. */
function fnv1a32(text: string, offset: number): string {
  let hash = offset >>> 0;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
