export type { AssistantTurn, ChatMessage, ToolCall } from './types.js';
export { offeredToolNames } from './offered-tools.js';
export { normaliseToolName } from './tool-name.js';
