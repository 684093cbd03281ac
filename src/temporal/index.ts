/**
 * Temporal constraints over a session's trace of states: the pure oracle, incremental
 * monitors, anticipation of doomed verdicts and the messages that explain them.
 */
export {
  CONSTRAINT_PARAMETERS,
  CONSTRAINT_TYPES,
  EACH_TYPES,
  type ConstraintParameter,
  type ConstraintType,
  type MonitorState,
  type StateSelector,
  type TemporalConstraint,
  type TracePoint,
  type TransitionGraph,
  type Verdict,
  type ViolationPoint,
} from './types.js';
export {
  ANY_STATE,
  compileSelector,
  describeSelector,
  NOT_PREFIX,
  selectorIncludes,
  selectorNames,
  type CompiledSelector,
  type DescribeSelectorOptions,
} from './selector.js';
export { assertConstraintParameters } from './parameters.js';
export { evaluateConstraint, type EvaluateOptions } from './evaluate.js';
export {
  defineConstraintType,
  type ConstraintEvaluator,
  type ConstraintTypeDef,
  type ConstraintTypeDefinition,
  type CustomConstraint,
} from './custom.js';
export { BUILT_IN_CONSTRAINT_TYPES, type BuiltInOptions } from './builtin-types.js';
export {
  closeMonitor,
  compileConstraint,
  compileCustomConstraint,
  ignoreTargetsAfter,
  initialMonitorState,
  monitorKey,
  previewStep,
  stepMonitor,
  wouldViolate,
  type CompiledConstraint,
} from './monitor.js';
export { createTransitionGraph, type TransitionGraphOptions } from './graph.js';
export { canEverBeSatisfied, canEverFire, isDoomed, reachableStates } from './anticipation.js';
export { describeDoomed, describeViolation } from './messages.js';
export {
  DEFAULT_COUNTEREXAMPLE_BUDGET,
  findCounterexample,
  type Counterexample,
  type CounterexampleOptions,
  type CounterexampleResult,
} from './counterexample.js';
