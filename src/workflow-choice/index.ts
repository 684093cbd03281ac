/** Several workflows side by side: their ids, their sessions' place in a shared store, and how a session's is chosen. */
export { isWorkflowId, WORKFLOW_ID, workflowNamespace } from './ids.js';
export { namespacedStore } from './namespaced-store.js';
export { compileSelect, type CompiledSelect, type SelectWorkflow, type WorkflowSelectionInput } from './select.js';
