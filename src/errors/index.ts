export { hasErrorCode, PanoptesError, type PanoptesErrorCode } from './panoptes-error.js';
export { InvalidOptionError } from './invalid-option-error.js';
export { WorkflowValidationError } from './workflow-validation-error.js';
export { DiagnosticsError } from './diagnostics-error.js';
export { RulebaseError } from './rulebase-error.js';
export { WorkflowViolationError } from './workflow-violation-error.js';
export { isHostControlFlow } from './control-flow.js';
export { ClosedError } from './closed-error.js';
export { RubricError } from './rubric-error.js';
