/** Naming sessions: the session of a conversation nobody named, shared by every adapter. */
export {
  conversationSessionsOf,
  createConversationSessions,
  DEFAULT_CONVERSATION_LIMIT,
  type ConversationSessions,
  type ConversationSessionsOptions,
} from './conversation-sessions.js';
