/** Several workflows in one proxy: what a request is checked against, and how it is picked. */
export type { WorkflowPipeline } from './pipeline.js';
export { createSelection, modelGlob, proxyKeyId, selectorMatches, type SelectedWorkflow, type SelectionInput, type WorkflowSelector } from './selection.js';
