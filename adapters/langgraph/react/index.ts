/**
 * ReAct verification graphs: the controller as a LangGraph state graph, and the verifier of cases against a
 * written policy built on it.
 */
export { buildReactGraph, createReactGraph, reactRecursionLimit, type ReactGraphBuilder } from './graph.js';
export { freshControllerState, initialControllerState, ReactAnnotation, ReactInputAnnotation, ReactOutputAnnotation, type ReactControllerState, type ReactGraphState, type ReactOutputDefinition, type ReactStateDefinition, type ReactStatus } from './state.js';
export { evaluationMessages, type ThreadHistory } from './evaluation.js';
export { DEFAULT_MAX_FINISH_REPAIRS, DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_TOKENS, type ReactFallback, type ReactFallbackContext, type ReactGraphOptions, type ReactRetryOptions } from './options.js';
export { FINISH_TOOL, type FinishSchema } from './finish-tool.js';
export { NO_TOOL_CALL_NUDGE } from './model-call.js';
export { resumeCommand } from './resume.js';
export { earlierToolAnswer } from './tool-calls.js';
export { toolCallRecord, type ToolCallRecord } from './tool-record.js';
export { createVerificationGraph, DEFAULT_ABSTAIN_BELOW, DEFAULT_MAX_CASE_BYTES, DEFAULT_MAX_CRITERION_BYTES, verificationFinishSchema, type VerificationGraph, type VerificationGraphOptions, type VerificationNode } from './verification-graph.js';
export {
  VerificationAnnotation,
  VerificationInputAnnotation,
  VerificationOutputAnnotation,
  type CaseBundle,
  type Criterion,
  type CriterionResult,
  type CriterionResultStatus,
  type CriterionStatus,
  type PendingInterrupt,
  type TraceStep,
  type VerificationInput,
  type VerificationOutput,
  type VerificationState,
  type VerificationUsage,
} from './verification-state.js';
export { fallbackVerdictSchema, type FallbackVerdict, type VerificationFallback, type VerificationFallbackContext } from './verification-fallback.js';
export { VERIFICATION_PROMPT_ID, VERIFICATION_SYSTEM_PROMPT } from './verification-prompt.js';
export { SEARCH_POLICY_TOOL, retrievedDocuments, type PolicyRetriever, type RetrievedDocument } from './verification-tools.js';
export { criterionResult, traceOf, usageOf, type CriterionResultOptions, type VerificationFinish } from './criterion-result.js';
export { resumeCase, verifyCase, type VerificationRunner, type VerifyCaseOptions } from './verify-case.js';
export { AB_LATENCY_WINDOW, abVerifier, type AbArm, type AbArmMetrics, type AbLabel, type AbMetrics, type AbResult, type AbVerifier, type AbVerifierOptions } from './ab.js';
export { compareResults, DEFAULT_SHADOW_CONFIDENCE_TOLERANCE, SHADOW_DISAGREEMENT_EVENT, shadowVerifier, type ShadowDisagreement, type ShadowVerifier, type ShadowVerifierOptions } from './shadow.js';
export { DEFAULT_SEARCH_DESCRIPTION } from './verification-tools.js';
export { DEFAULT_POLICY_K, policyRetriever, PolicySectionRetriever, type PolicyRetrieverOptions, type PolicySource } from './policy-retriever.js';
export { verifyCases, type CaseCriterionResult, type CaseToVerify, type VerifyCasesOptions, type VerifyCasesSummary } from './verify-cases.js';
