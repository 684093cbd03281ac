/**
 * Panoptes core: workflows, temporal constraints and interventions, free of any agent framework.
 * @module panoptes
 */
export * from './errors/index.js';
export * from './async/index.js';
export * from './diagnostics/index.js';
export * from './clock/index.js';
export * from './messages/index.js';
export * from './temporal/index.js';
export * from './intervene/index.js';
export * from './workflow/index.js';
export * from './embed/index.js';
export * from './vector-index/index.js';
export * from './classify/index.js';
export * from './rules/index.js';
export * from './facts/index.js';
export * from './guards/index.js';
export * from './store/index.js';
export * from './monitor/index.js';
export * from './registry/index.js';
export { isWorkflowId, namespacedStore, WORKFLOW_ID, workflowNamespace, type SelectWorkflow, type WorkflowSelectionInput } from './workflow-choice/index.js';
export {
  auditExitCode,
  auditTranscripts,
  parseTranscripts,
  renderAuditHtml,
  renderAuditText,
  replayTranscript,
  type AuditExit,
  type AuditOptions,
  type AuditReport,
  type AuditStep,
  type AuditViolation,
  type RenderAuditTextOptions,
  type SessionAudit,
  type Transcript,
  type TranscriptProblem,
} from './audit/index.js';
export * from './loops/index.js';
export * from './session/index.js';
export * from './react/index.js';
export { ATTR, EVENT, INSTRUMENTATION_SCOPE, METRIC, OPERATION, SPAN, DEFAULT_SECRET_PATTERNS, REDACTED, redactSecrets, type TelemetryOptions } from './telemetry/index.js';
export * from './scenarios/index.js';
export * from './authoring/index.js';
export * from './judge/index.js';
