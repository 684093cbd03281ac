export type { AssistantTurn, ChatMessage, ToolCall } from './types.js';
