/**
 * Judged rubrics: rubric files, the LLM judge that scores them (cache, budgets, timeouts, telemetry), offline judges
 * for tests, and calibration metrics.
 * @module
 */
export type { Criterion, CriterionScale, Rubric, RubricAppliesTo, RubricOnError, RubricOnFail, RubricScope } from './rubric.js';
export { CRITERION_SCALES, normaliseScore, scaleRange } from './rubric.js';
export { isRubricDocument, loadRubrics, MISSING_RUBRIC_HINT, parseRubrics, POLICY_RUBRIC_ID, validateRubrics, type RubricLoadOptions, type RubricValidationResult } from './load.js';
