import type { AssistantTurn, ChatMessage } from '../messages/index.js';
import { EMPTY_HISTORY, historyHashes, type ConversationSessions } from './conversation-sessions.js';

/** Where a model call that names no session was placed: its session, and its request's history hash (for `answered`). */
export interface Placement {
  sessionId: string;
  /** The history hash of the request (see `historyHashes`); `answered` records the answer after it. */
  request: string;
}

/**
 * Places model calls that name no session by their conversation's own history, with the rules of
 * {@link ConversationSessions}: a request continues the session whose recorded answer its history carries; an answer
 * is continued once, and a second request continuing it gets a session of its own that starts from the state the
 * first found. So two conversations share a session only while their histories are identical.
 *
 * The in-process registry ({@link localPlacement}) serves one process; a registry in a shared store (the Redis store's
 * `conversations()`) lets several processes agree on the placement, as they agree on the sessions themselves.
 */
export interface ConversationPlacement {
  /** The session of a request whose history (oldest first, as the client sent it) is `messages`. */
  place(messages: readonly ChatMessage[]): Placement | Promise<Placement>;
  /**
   * Records the answer the client received for a placed request, so the request that continues it finds the session.
   * Record the answer as delivered (refused calls taken out, refusal text in), since that is what the client sends back.
   */
  answered(placement: Placement, turn: AssistantTurn): void | Promise<void>;
}

/** Most recorded answers a request's history is searched for, newest first: a longer history is not placed by older ones. */
export const MAX_PLACEMENT_CANDIDATES = 16;

/**
 * The keys a request is placed by: the history hashes of its assistant messages, newest first (at most
 * {@link MAX_PLACEMENT_CANDIDATES}), and the hash of the whole request.
 */
export function placementKeys(messages: readonly ChatMessage[]): { candidates: string[]; request: string } {
  const hashes = historyHashes(messages);
  const candidates: string[] = [];
  for (let index = messages.length - 1; index >= 0 && candidates.length < MAX_PLACEMENT_CANDIDATES; index--) {
    if (messages[index]!.role === 'assistant') candidates.push(hashes[index]!);
  }
  return { candidates, request: hashes.at(-1) ?? EMPTY_HISTORY };
}

/**
 * The in-process registry (a monitor's `conversations`) as a placement: what a single process uses. Forks start from
 * the state their source had, through the monitor that owns the registry.
 * @example
 * const placement = localPlacement(monitor.conversations);
 */
export function localPlacement(conversations: ConversationSessions): ConversationPlacement {
  return {
    place: (messages) => ({ sessionId: conversations.sessionOf(messages), request: '' }),
    answered: ({ sessionId }, turn) => conversations.answered(sessionId, turn),
  };
}
