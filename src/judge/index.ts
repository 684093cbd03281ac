/**
 * Judged rubrics: rubric files, the LLM judge that scores them (cache, budgets, timeouts, telemetry), offline judges
 * for tests, and calibration metrics.
 * @module
 */
export type { Criterion, CriterionScale, Rubric, RubricAppliesTo, RubricOnError, RubricOnFail, RubricScope } from './rubric.js';
export { CRITERION_SCALES, normaliseScore, scaleRange } from './rubric.js';
export { isRubricDocument, loadRubrics, MISSING_RUBRIC_HINT, parseRubrics, POLICY_RUBRIC_ID, validateRubrics, type RubricLoadOptions, type RubricValidationResult } from './load.js';
export { namedJudgeModel, type JudgeMessage, type JudgeModel, type JudgeModelRequest } from './model.js';
export { judgedText, rubricApplies, stableJson, type JudgedTextLimits, type JudgeInput } from './input.js';
export { judgeMessages, verdictJsonSchema } from './prompt.js';
export { isVerdictProblem, readVerdict, type CriterionVerdict, type JudgeVerdict, type VerdictProblem } from './verdict.js';
export { createVerdictCache, DEFAULT_JUDGE_CACHE_SIZE, judgeCacheKey, type VerdictCache } from './cache.js';
export { createJudgeBudget, type BudgetUsage, type JudgeBudget, type JudgeBudgetOptions, type JudgeLimits } from './budget.js';
export { createJudge, DEFAULT_JUDGE_CONCURRENCY, DEFAULT_JUDGE_TIMEOUT_MS, type Judge, type JudgeAction, type JudgeErrorKind, type JudgeOptions, type JudgeStats, type Judgment } from './judge.js';
export { CassetteMissError, emptyCassette, recordedJudge, scriptedJudge, type Cassette, type CassetteEntry, type RecordedJudgeOptions } from './offline.js';
export { auroc, expectedCalibrationError, suggestPassAt, tprAtFpr, type PassAtSuggestion } from './metrics.js';
export { calibrateJudge, calibrationReport, type CalibrateOptions, type CalibrationReport, type LabelledCase } from './calibrate.js';
export { decideJudgments, judgeCondition, judgeToolCall, sentinelJudge, judgeTurn, type JudgedAnswer, type JudgedCondition, type JudgedDecision, type JudgedOutcome, type JudgeToolCallInput } from './host.js';
export { rubricJsonSchema } from './schema.js';
export { judgmentReporter, type JudgmentReport, type OnJudgment } from './report.js';
export { createConversationJudge, DEFAULT_CONVERSATION_IN_FLIGHT, DEFAULT_CONVERSATION_SESSIONS, type ConversationJudge, type ConversationJudgeOptions, type ConversationJudgeStats, type ConversationJudgeTurn } from './conversation.js';
