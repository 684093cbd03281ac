/** Prices of one model, in US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

/** Prices by model name (as the provider reports it, e.g. `gpt-4o-mini`). A name not listed matches its longest listed prefix. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** Tokens one model call used. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** Why a ReAct run stopped without a verdict of its own, or why its verdict was changed. */
export type ReactReasonCode =
  | 'budget_iterations'
  | 'budget_tokens'
  | 'budget_cost'
  | 'timeout'
  | 'llm_error'
  | 'invalid_finish'
  | 'retrieval_error'
  | 'loop_detected'
  | 'workflow_blocked'
  | 'low_confidence'
  | 'unsupported'
  | 'invalid_input'
  | 'tool_error';

/**
 * The price of a model: the exact name, else the longest listed name it starts with (`gpt-4o-mini-2024-07-18`
 * priced as `gpt-4o-mini`), else undefined.
 */
export function priceOf(table: PriceTable, model: string): ModelPrice | undefined {
  const exact = table[model];
  if (exact) return exact;
  let best: string | undefined;
  for (const name of Object.keys(table)) if (model.startsWith(name) && (best === undefined || name.length > best.length)) best = name;
  return best === undefined ? undefined : table[best];
}

/** What a call cost in US dollars at `price`. */
export function costOf(usage: TokenUsage, price: ModelPrice): number {
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}

/** Limits of one run, as {@link budgetExceeded} checks them; an absent limit is not checked. */
export interface RunBudget {
  maxTokens?: number;
  maxCostUsd?: number;
}

/** Totals of one run so far. */
export interface RunTotals {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** The first budget the totals exceed (tokens, then cost), or undefined. Exceeding means going over: a run may use all of its budget. */
export function budgetExceeded(totals: RunTotals, budget: RunBudget): 'budget_tokens' | 'budget_cost' | undefined {
  if (budget.maxTokens !== undefined && totals.inputTokens + totals.outputTokens > budget.maxTokens) return 'budget_tokens';
  if (budget.maxCostUsd !== undefined && totals.costUsd > budget.maxCostUsd) return 'budget_cost';
  return undefined;
}

/** Text cut to `limit` characters, marked with an ellipsis when cut: observations in a trace (500 by default). */
export function truncateText(text: string, limit = 500): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
