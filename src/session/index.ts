/** Naming sessions: the session of a conversation nobody named, shared by every adapter. */
export {
  conversationSessionsOf,
  createConversationSessions,
  DEFAULT_CONVERSATION_LIMIT,
  type ConversationSessions,
  type ConversationSessionsOptions,
} from './conversation-sessions.js';
export { answerHash, EMPTY_HISTORY, historyHashes } from './conversation-sessions.js';
export { localPlacement, MAX_PLACEMENT_CANDIDATES, placementKeys, type ConversationPlacement, type Placement } from './conversation-placement.js';
