import type { BaseMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { InvalidOptionError, type Clock, type Logger, type LoopDetector, type Monitor, type PriceTable, type SentinelSource, type TelemetryOptions } from '../../../src/index.js';
import type { ThreadHistory } from './evaluation.js';
import type { FinishSchema } from './finish-tool.js';
import type { ReactGraphState } from './state.js';

/** Iterations (model calls that answered) a run may make unless told otherwise. */
export const DEFAULT_MAX_ITERATIONS = 10;
/** Tokens (input and output, over all model calls) a run may use unless told otherwise. */
export const DEFAULT_MAX_TOKENS = 6_000;
/** Times an invalid `finish` is sent back to the model before the run ends `invalid_finish`. */
export const DEFAULT_MAX_FINISH_REPAIRS = 2;

/**
 * Retries of a model call that failed transiently (429, 5xx, a timeout, the network), with exponential backoff:
 * by default the reference schedule, 3 retries after 1 s, 2 s and 4 s, each lengthened by up to a quarter at random.
 */
export interface ReactRetryOptions {
  /** Attempts in all, the first included. @default 4 */
  maxAttempts?: number;
  /** Wait before the second attempt, in milliseconds. @default 1000 */
  initialIntervalMs?: number;
  /** Each wait is this many times the one before. @default 2 */
  backoffFactor?: number;
  /** Longest wait, in milliseconds. @default 8000 */
  maxIntervalMs?: number;
  /** Lengthen each wait by up to a quarter at random, so runs that hit one rate limit together do not retry together. @default true */
  jitter?: boolean;
  /** Which errors are worth another attempt (LangGraph's `retryOn`). @default `isTransientModelError`: 429, 408, 409, 5xx, timeouts, the network */
  retryOn?: (error: unknown) => boolean;
}

/** What a fallback function receives: the error that ended the model's part, this evaluation's messages and the graph's state. */
export interface ReactFallbackContext<State = ReactGraphState> {
  error: unknown;
  messages: BaseMessage[];
  state: State;
}

/** A model to take over, or a function that gives the run's result (the output `finish` would have given). */
export type ReactFallback<Output> = BaseChatModel | ((context: ReactFallbackContext<ReactGraphState<Output>>) => Output | Promise<Output>);

/** Options of {@link createReactGraph}; the telemetry options are the monitor's (`tracer`, `meter`, `telemetry`, `redactPatterns`, ...). */
export interface ReactGraphOptions<Output = unknown> extends TelemetryOptions {
  /** Any LangChain chat model that supports tool calling (`bindTools`). */
  model: BaseChatModel;
  /** The tools the model may call, besides `finish`. */
  tools: StructuredToolInterface[];
  /** The arguments of `finish`: a zod object schema. The run's `react.output` is what it parsed. */
  finishSchema: FinishSchema<Output>;
  /** What the model is told `finish` is for. @default 'Give your final answer.' */
  finishDescription?: string;
  /** Sent before the thread's messages on every model call; never stored in the thread. */
  systemPrompt?: string;
  /** Model calls that answered, at most; the run then ends `uncertain` with `budget_iterations`. @default 10 */
  maxIterations?: number;
  /** Input and output tokens over the run (from the messages' `usage_metadata`), at most. @default 6000 */
  maxTokens?: number;
  /** What going over `maxTokens` does: end the run (`budget_tokens`), or log a warning once and go on. @default 'stop' */
  onTokenBudget?: 'warn' | 'stop';
  /** US dollars over the run, at most, priced by `prices`; the run then ends `budget_cost`. @default no limit */
  maxCostUsd?: number;
  /** Prices per million tokens by model name, for `maxCostUsd` and the reported cost. @default {} */
  prices?: PriceTable;
  /** Wall time of the evaluation from its first model call, in milliseconds; the run then ends `timeout`. @default no limit */
  timeoutMs?: number;
  /** One attempt of a model call, in milliseconds (LangGraph's node `timeout`); a timed-out attempt is retried. @default no limit */
  modelTimeoutMs?: number;
  /** One step of tool calls, in milliseconds (LangGraph's node `timeout`); the run then ends `timeout`. @default `timeoutMs` */
  toolTimeoutMs?: number;
  /** Retries of transient model errors, through LangGraph's `retryPolicy`. */
  retry?: ReactRetryOptions;
  /** How the backoff waits: injectable, so tests wait for nothing. @default a timer */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Invalid `finish` calls sent back to the model with the schema's issues, at most. @default 2 */
  maxFinishRepairs?: number;
  /** Used after a permanent error, or when retries ran out: another chat model, or a function giving the result. */
  fallback?: ReactFallback<Output>;
  /** Answers a repeated identical tool call from the thread's earlier observation, without running the tool. @default true */
  cacheToolCalls?: boolean;
  /**
   * A new input on a thread that holds an earlier evaluation begins a new one (budgets, tool cache and trace start
   * afresh); `reset` removes the earlier messages from the thread, `keep` leaves them for the model to read (and the
   * run says `continued`). @default 'reset'
   */
  history?: ThreadHistory;
  /** A workflow monitor (best from `createGraphMonitor`): wraps the model node with `wrapModelNode` and guards the tools. */
  monitor?: Monitor;
  /** A loop detector: its hints go into the next model call, and its stop ends the run `loop_detected`. */
  loops?: LoopDetector;
  /** A sentinel (or per-conversation sentinels) that must prove each tool call allowed: guards the tools. */
  sentinel?: SentinelSource;
  /** The session of the monitor, loop detector and sentinel. @default the thread id, else one per evaluation */
  sessionId?: string;
  /** Time, for budgets and durations. @default the system clock */
  clock?: Clock;
  /** Where Panoptes reports its own failures and token-budget warnings. @default console */
  logger?: Logger;
}

/** Validates what `createReactGraph` cannot run without, naming the option and the fix. */
export function assertReactOptions(options: ReactGraphOptions<unknown>): void {
  const { model, tools, maxIterations, maxTokens, maxCostUsd, timeoutMs, modelTimeoutMs, toolTimeoutMs, maxFinishRepairs, onTokenBudget, fallback, history } = options;
  if (!model || typeof (model as { bindTools?: unknown }).bindTools !== 'function') {
    throw new InvalidOptionError({ parameter: 'model', value: model === undefined ? undefined : 'a model without bindTools', fix: 'Pass a LangChain chat model that supports tool calling (ChatOpenAI, ChatAnthropic, fakeModel() in tests).' });
  }
  if (!Array.isArray(tools) || tools.length === 0) {
    throw new InvalidOptionError({ parameter: 'tools', value: tools, fix: 'Pass at least one tool for the model to gather evidence with; finish is added for you.' });
  }
  const names = new Set<string>();
  for (const candidate of tools) {
    if (typeof candidate?.name !== 'string' || typeof candidate.invoke !== 'function') throw new InvalidOptionError({ parameter: 'tools', value: candidate?.name ?? typeof candidate, fix: 'Pass LangChain tools (from tool() in @langchain/core/tools).' });
    if (candidate.name === 'finish') throw new InvalidOptionError({ parameter: 'tools', value: 'finish', fix: 'Leave finish out: the graph adds it, validated by `finishSchema`.' });
    if (names.has(candidate.name)) throw new InvalidOptionError({ parameter: 'tools', value: candidate.name, fix: 'Give each tool its own name.' });
    names.add(candidate.name);
  }
  positiveInteger('maxIterations', maxIterations);
  positiveInteger('maxTokens', maxTokens);
  positive('maxCostUsd', maxCostUsd);
  positive('timeoutMs', timeoutMs);
  positive('modelTimeoutMs', modelTimeoutMs);
  positive('toolTimeoutMs', toolTimeoutMs);
  if (maxFinishRepairs !== undefined && !(Number.isInteger(maxFinishRepairs) && maxFinishRepairs >= 0)) throw new InvalidOptionError({ parameter: 'maxFinishRepairs', value: maxFinishRepairs, fix: 'Pass a whole number of repairs, 0 or more; the default is 2.' });
  if (onTokenBudget !== undefined && onTokenBudget !== 'warn' && onTokenBudget !== 'stop') throw new InvalidOptionError({ parameter: 'onTokenBudget', value: onTokenBudget, fix: "Pass 'stop' (the default) or 'warn'." });
  if (history !== undefined && history !== 'reset' && history !== 'keep') throw new InvalidOptionError({ parameter: 'history', value: history, fix: "Pass 'reset' (the default: a new input starts a clean thread) or 'keep'." });
  if (fallback !== undefined && typeof fallback !== 'function' && typeof (fallback as { bindTools?: unknown }).bindTools !== 'function') {
    throw new InvalidOptionError({ parameter: 'fallback', value: typeof fallback, fix: 'Pass a chat model that supports tool calling, or a function returning the result.' });
  }
  const retry = options.retry ?? {};
  positiveInteger('retry.maxAttempts', retry.maxAttempts);
  for (const key of ['initialIntervalMs', 'maxIntervalMs'] as const) if (retry[key] !== undefined && !(retry[key]! >= 0)) throw new InvalidOptionError({ parameter: `retry.${key}`, value: retry[key], fix: 'Pass a number of milliseconds, 0 or more.' });
  positive('retry.backoffFactor', retry.backoffFactor);
  if (retry.retryOn !== undefined && typeof retry.retryOn !== 'function') throw new InvalidOptionError({ parameter: 'retry.retryOn', value: typeof retry.retryOn, fix: 'Pass a function of the error that says whether to try again.' });
}

function positiveInteger(parameter: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isInteger(value) && value > 0)) throw new InvalidOptionError({ parameter, value, fix: 'Pass a whole number above 0.' });
}

function positive(parameter: string, value: number | undefined): void {
  if (value !== undefined && !(typeof value === 'number' && value > 0 && Number.isFinite(value))) throw new InvalidOptionError({ parameter, value, fix: 'Pass a finite number above 0.' });
}
