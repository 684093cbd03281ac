import { hashString } from '../hash/cyrb53.js';
import type { ChatMessage } from '../messages/index.js';

/**
 * A stable id for a conversation nobody named (DESIGN.md section 7): a hash of its opening, that is the system
 * messages before any other message and the text of the first user message. Later turns do not change the opening,
 * and neither do interventions (they edit only the copy of a request sent to the model), so every call of one
 * conversation lands in the same session, in any process. Two conversations that open with the same words share a
 * session: name the session (a thread id, a header) when that can happen.
 *
 * Only `role` and `content` are read, and nothing after the first user message, so an adapter may pass just the
 * opening instead of converting a long history on every call.
 * @example
 * conversationSessionId([{ role: 'system', content: 'You are a support agent.' }, { role: 'user', content: 'Refund my order.' }])
 * // 'conversation-' followed by 28 hex digits, the same every run
 */
export function conversationSessionId(messages: readonly ChatMessage[]): string {
  const system: string[] = [];
  for (const message of messages) {
    if (message.role !== 'system') break;
    system.push(message.content);
  }
  const firstUser = messages.find((message) => message.role === 'user');
  return `conversation-${stableHash([system.join('\n'), firstUser?.content ?? ''])}`;
}

/**
 * Not cryptographic: it only has to keep unrelated conversations apart. Two 53-bit lanes make a collision between two
 * live conversations vanishingly unlikely, and it needs no `node:crypto`, so the adapters also run in browsers and
 * edge runtimes.
 */
function stableHash(parts: readonly string[]): string {
  // The length prefixes keep ['ab', 'c'] and ['a', 'bc'] apart.
  const text = parts.map((part) => `${part.length}:${part}`).join('\u0000');
  return hashString(text, 0x9e3779b9).toString(16).padStart(14, '0') + hashString(text, 0x85ebca6b).toString(16).padStart(14, '0');
}

