/**
 * Panoptes for LangGraph.js: the monitor node (your model node, wrapped), a guarded `ToolNode`, and the state
 * channel that keeps the monitor's session in graph state, so checkpointers persist it; and ReAct verification
 * graphs (`createReactGraph`, `createVerificationGraph`, `verifyCase`, `shadowVerifier`) built on them.
 * @module panoptes/langgraph
 */
export { PanoptesAnnotation, sessionFromState, type PanoptesGraphState } from './state.js';
export { createGraphMonitor, GRAPH_HISTORY_LIMIT, isGraphMonitor, type GraphMonitor, type GraphMonitorOptions } from './graph-monitor.js';
export { wrapModelNode, type ModelNode, type ModelNodeUpdate, type WrapModelNodeOptions } from './model-node.js';
export { GuardedToolNode, type ApprovalRequest, type ApprovalResponse, type GuardedToolNodeOptions } from './tool-node.js';
export { graphSessionId } from './graph-session.js';
export * from './react/index.js';
