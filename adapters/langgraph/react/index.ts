/**
 * ReAct verification graphs (DESIGN.md section 15): the controller as a LangGraph state graph, and the verifier
 * of cases against a written policy built on it.
 */
export { buildReactGraph, createReactGraph, reactRecursionLimit } from './graph.js';
export { ReactAnnotation, initialControllerState, type ReactControllerState, type ReactGraphState, type ReactStatus } from './state.js';
export { DEFAULT_MAX_FINISH_REPAIRS, DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_TOKENS, type ReactFallback, type ReactFallbackContext, type ReactGraphOptions, type ReactRetryOptions } from './options.js';
export { FINISH_TOOL, type FinishSchema } from './finish-tool.js';
export { NO_TOOL_CALL_NUDGE } from './model-call.js';
export { toolCallRecord, type ToolCallRecord } from './tool-calls.js';
