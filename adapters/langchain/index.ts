/**
 * Panoptes for LangChain.js: `createAgent` middleware, an observing callback handler for any runnable, guarded
 * tools, and the converters between LangChain messages and the core's neutral types.
 * @module panoptes/langchain
 */
export { panoptesMiddleware, type PanoptesMiddlewareOptions } from './middleware.js';
export { FACTS_HEADER } from '../../src/index.js';
export { defaultBlockMessage, type BlockMessage } from './block-message.js';
export { PanoptesCallbackHandler, type PanoptesCallbackHandlerOptions } from './callback-handler.js';
export { wrapTools, type WrapToolsOptions } from './wrap-tools.js';
export { policyTools } from './policy-tools.js';
export { ToolCallRefusedError } from './tool-call-refused-error.js';
export { resolveSessionId, type SessionIdSources } from './session-id.js';
export {
  fromChatMessage,
  fromChatMessages,
  hostOf,
  textOf,
  toAssistantTurn,
  toChatMessage,
  toChatMessages,
  toToolCall,
  type LangChainToolCall,
} from './translate.js';
export { compilerModel, type LangChainCompilerModelOptions } from './compiler-model.js';
export { judgeModel, type LangChainJudgeModelOptions } from './judge-model.js';
