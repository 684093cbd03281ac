/** Naming sessions: the id of a conversation nobody named, shared by every adapter. */
export { conversationSessionId } from './session-id.js';
