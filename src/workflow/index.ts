/**
 * Workflows: loading and validating workflow files, the compiled `Workflow`, and the pure
 * state machine over it.
 * @module
 */
export type {
  ClassificationDefinition,
  ConstraintDefinition,
  DeviationPolicy,
  InterventionDefinition,
  InterventionStrategy,
  Severity,
  StateDefinition,
  TransitionDefinition,
  TransitionGuardDefinition,
  WorkflowDefinition,
} from './types.js';
export { SEVERITIES } from './types.js';
export { loadWorkflow, parseWorkflow, validateWorkflow, type WorkflowLoadOptions, type WorkflowValidationResult } from './load.js';
export { createWorkflow, type Workflow } from './workflow.js';
export { workflowJsonSchema } from './schema.js';
export { DEFAULT_MAX_BYTES } from '../limits/index.js';
export { GUARD_VARIABLES, type GuardInput } from './guard.js';
export type { SourcePosition } from './positions.js';

// The state machine, linting and diagram (written beside the loader by other engineers).
export type { ClassificationMethod, DeviationRecord, RefusalRecord, ViolationRecord, WorkflowSnapshot } from './snapshot.js';
export {
  createSnapshot,
  DEFAULT_HISTORY_LIMIT,
  previewEnter,
  takeInterventions,
  transition,
  verdictsOf,
  type EnterPreview,
  type EnterPreviewContext,
  type TransitionResult,
  type WorkflowEffect,
  type WorkflowEvent,
} from './transition.js';
export { noteRefusals } from './refusal-notes.js';
export { canWithhold, DEFAULT_USER_MESSAGE, previewWithhold, withholds, type WithholdDecision } from './withhold.js';
export { lintWorkflow } from './lint.js';
export { describeConstraint, describeRule, workflowToMermaid } from './mermaid.js';
export { findWorkflowCounterexamples, type ConstraintCounterexample, type WorkflowCounterexampleOptions } from './counterexamples.js';
export { workflowSummary, type WorkflowSummary } from './summary.js';
export { anchorOf, classifyUserTurn, hasEachConstraints, hasUserTurnStates, isTransparentState, isTransparentTool, isUserTurnState } from './transparent.js';
export { groundedArgumentNames, groundedArgumentsOf, keepsAnswered } from './grounded.js';
