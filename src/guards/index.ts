/** Guarded tools: the sentinel that proves every tool call against a rulebase before it runs. */
export {
  createSentinel,
  DEFAULT_FETCH_TIMEOUT_MS,
  DEFAULT_MAX_ANSWERS,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_STEPS,
  type Sentinel,
  type SentinelOptions,
  type SentinelTool,
  type StrictOptions,
} from './sentinel.js';
export type { Blocker, CheckResult, Derivation, DerivationKind, ProofStatus, QueryAnswer, QueryResult } from './result.js';
export { fetchKey, type ToolHandler } from './data-fetcher.js';
export { createPolicyTools, type JsonObjectSchema, type PolicyTool, type PolicyToolResult } from './model-tools.js';
export { blockerText, DEFAULT_POLICY_TOOL_NAMES, formatDerivation, type PolicyToolNames } from './text.js';
export { SentinelInputError } from './sentinel-input-error.js';
export { ToolCallDeniedError } from './tool-call-denied-error.js';
export { systemSleep, type Sleep } from './sleep.js';
export { assertFactSummaryOption, FACT_SUMMARY_FAILURE, FACTS_HEADER, factSummaryBlock } from './fact-summary.js';
export {
  assertSentinelOption,
  createSentinelSessions,
  isSentinelSessions,
  sentinelFor,
  type SentinelSessions,
  type SentinelSessionsOptions,
  type SentinelSource,
} from './sentinel-sessions.js';
export {
  guardToolCall,
  guardToolCallSyncFirst,
  recordToolResult,
  toolRefusal,
  type GuardToolCallOptions,
  type RecordToolResultOptions,
  type ToolCallDecision,
  type ToolRefusal,
} from './guard-tool-call.js';
export type { ToolOutcome } from './tool-results.js';
export { approvalQuestions, confirmationRef, declinedText, needsOnlyApproval } from './confirmation.js';
export { DEFAULT_CONDITION_JUDGE_TIMEOUT_MS, type ConditionJudge, type ConditionRequest, type ConditionVerdict } from './judge.js';
export { describeLink, fromUntrusted, toolsSeenIn, untrustedInContext, userGave, type ProvenanceLink, type RelationVerdict } from './provenance-relations.js';
export { exchangeOf, isPlainYes, type ConversationTurn } from '../grounding/index.js';
export { normaliseStatement, unstatedArguments } from '../grounding/index.js';
export { connectWorkflowStates } from './connect-workflow.js';
export { noteWorkflowStates, SAID } from './workflow-states.js';
