/**
 * The parts of a ReAct controller that need no agent framework: error classification for
 * retries, budget arithmetic and prices, and citation checking. `panoptes/langgraph` builds the graphs on them.
 */
export { classifyModelError, isTransientModelError, type ModelErrorClass } from './error-class.js';
export { normalizeQuoteText, verifyCitations, type CitableDocument, type Citation, type CitationCheck, type RejectedCitation } from './citations.js';
export { budgetExceeded, costOf, priceOf, truncateText, type ModelPrice, type PriceTable, type ReactReasonCode, type RunBudget, type RunTotals, type TokenUsage } from './budgets.js';
export { mapWithConcurrency } from './concurrency.js';
export { DEFAULT_MAX_CHUNK_CHARS, findQuoteSpan, policySourceNames, SECTION_SEPARATOR, splitPolicy, type PolicyChunk, type SplitPolicyOptions } from './policy-sections.js';
export type { ScriptedAnswer } from './scripted-answer.js';
export { createReactTelemetry, type ReactRunSummary, type ReactRunTrace, type ReactTelemetry } from './telemetry.js';
