import { randomUUID } from 'node:crypto';
import { HumanMessage, SystemMessage, ToolMessage, type AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { Runnable } from '@langchain/core/runnables';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { ATTR, budgetExceeded, costOf, priceOf, SPAN, toolResultsAfterLastTurn, type Clock, type LoopDetector, type PriceTable, type ReactTelemetry } from '../../../src/index.js';
import type { FailureLog } from '../../langchain/fail-open.js';
import { namedSessionId } from '../../langchain/session-id.js';
import { toChatMessages, toToolCall } from '../../langchain/translate.js';
import { FINISH_TOOL } from './finish-tool.js';
import { currentRunTrace } from './run-trace.js';
import type { ReactControllerState, ReactGraphState } from './state.js';
import type { ToolCallRecord } from './tool-record.js';

/** What the model is told when it answered without calling a tool: a ReAct run ends only through `finish`. */
export const NO_TOOL_CALL_NUDGE = 'You answered without calling a tool. Call a tool to gather what you still need, or call finish with your answer.';

/** Everything the model node needs, resolved from the graph's options. */
export interface ModelCallSettings {
  model: Runnable<BaseMessage[], AIMessage>;
  fallbackModel?: Runnable<BaseMessage[], AIMessage>;
  /** Put before the messages by this node (left out when `wrapModelNode` puts it there). */
  system?: SystemMessage;
  toolNames: string[];
  maxIterations: number;
  maxTokens: number;
  onTokenBudget: 'warn' | 'stop';
  maxCostUsd?: number;
  prices: PriceTable;
  timeoutMs?: number;
  backoffMs: (retry: number) => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  loops?: LoopDetector;
  sessionId?: string;
  clock: Clock;
  failed: FailureLog;
  warn: (message: string) => void;
  /** A span per model step, when the invocation is traced. */
  telemetry: ReactTelemetry;
}

type ModelUpdate = { messages: BaseMessage[]; react: Partial<ReactControllerState> };

/**
 * The model node of a ReAct graph: one model call, with the budgets checked before and after it. A failed call
 * throws, so LangGraph's `retryPolicy` retries it (the backoff waits here, through the injectable `sleep`, at the
 * start of the next attempt) and the node's `errorHandler` takes over when it gives up. A budget spent, a deadline
 * passed or a loop detector's stop ends the run with a status, never an exception.
 */
export function reactModelNode(settings: ModelCallSettings) {
  const { clock, maxIterations, timeoutMs } = settings;
  return async function reactModel(state: ReactGraphState, config: LangGraphRunnableConfig): Promise<ModelUpdate | { react: Partial<ReactControllerState> }> {
    const attempt = (config as { executionInfo?: { nodeAttempt?: number } }).executionInfo?.nodeAttempt ?? 1;
    if (attempt > 1) await settings.sleep(settings.backoffMs(attempt - 1), config.signal);
    const react = state.react;
    const startedAt = react.startedAt ?? clock.now();
    const runKey = react.runKey ?? randomUUID();
    const opened = { startedAt, runKey, evaluation: react.evaluation ?? 1 };
    const deadline = timeoutMs === undefined ? undefined : startedAt + timeoutMs;
    if (deadline !== undefined && clock.now() >= deadline) return { react: ended(opened, 'timeout', `the evaluation ran past timeoutMs (${timeoutMs} ms)`, clock) };
    if (react.iterations >= maxIterations) return { react: ended(opened, 'budget_iterations', `the run made maxIterations (${maxIterations}) model calls`, clock) };

    const session = namedSessionId(settings.sessionId, config) ?? runKey;
    // A thread's later evaluation starts the loop detector's session afresh: loops are counted within one evaluation.
    if (react.startedAt === undefined && (react.evaluation ?? 1) > 1) forgetLoops(settings, session);
    const hint = await loopHint(settings, session, state.messages);
    if (hint?.action === 'stop') return { react: ended(opened, 'loop_detected', hint.text, clock) };
    const request = requestOf(settings, state.messages, hint?.text);
    const chosen = react.fallbackUsed && settings.fallbackModel ? settings.fallbackModel : settings.model;
    const run = currentRunTrace();
    const span = run && settings.telemetry.startStep(SPAN.reactModel, { [ATTR.iteration]: react.iterations + 1, [ATTR.attempt]: attempt }, run);
    let response: AIMessage | 'timeout';
    try {
      response = await callWithin(chosen, request, config, deadline, clock);
    } catch (error) {
      settings.telemetry.endStep(span, {}, error);
      throw error;
    }
    if (response === 'timeout') {
      settings.telemetry.endStep(span, { [ATTR.reasonCode]: 'timeout' });
      return { react: ended(opened, 'timeout', `the model call ran past timeoutMs (${timeoutMs} ms)`, clock) };
    }

    const totals = tally(settings, react, response);
    if (span) settings.telemetry.endStep(span, { [ATTR.responseModel]: totals.model, [ATTR.inputTokens]: response.usage_metadata?.input_tokens ?? 0, [ATTR.outputTokens]: response.usage_metadata?.output_tokens ?? 0 });
    const malformed = malformedCallAnswers(response);
    const iterations = react.iterations + 1;
    const update: Partial<ReactControllerState> = { ...opened, ...totals, iterations, modelAttempts: react.modelAttempts + attempt, malformedToolCalls: react.malformedToolCalls + malformed.length };
    await observeStep(settings, session, response);
    const overBudget = overBudgetReason(settings, totals);
    if (overBudget) return { messages: [response, ...malformed], react: ended(update, overBudget.code, overBudget.detail, clock) };
    // The last call the budget allows: unless it finishes, its tool calls would answer nobody.
    if (iterations >= maxIterations && !response.tool_calls?.some((call) => call.name === FINISH_TOOL)) {
      return { messages: [response, ...malformed], react: ended(update, 'budget_iterations', `the run made maxIterations (${maxIterations}) model calls without a valid finish`, clock) };
    }
    return { messages: [response, ...malformed], react: update };
  };
}

/** The controller's state for a run that ends here, `uncertain` with `reasonCode`. */
export function ended(update: Partial<ReactControllerState>, reasonCode: NonNullable<ReactControllerState['reasonCode']>, detail: string, clock: Clock): Partial<ReactControllerState> {
  return { ...update, status: 'uncertain', reasonCode, detail, endedAt: clock.now() };
}

/** The messages sent: the system prompt, the thread, and this call's notes (never stored in the thread). */
function requestOf(settings: ModelCallSettings, messages: BaseMessage[], hint: string | undefined): BaseMessage[] {
  const request = settings.system ? [settings.system, ...messages] : [...messages];
  const last = messages.at(-1);
  if (last?.getType() === 'ai' && !((last as AIMessage).tool_calls?.length)) request.push(new HumanMessage(NO_TOOL_CALL_NUDGE));
  if (hint) request.push(new HumanMessage(`[Panoptes] ${hint}`));
  return request;
}

/** Calls the model, racing the evaluation's deadline: the call's signal is aborted when it passes. */
async function callWithin(model: Runnable<BaseMessage[], AIMessage>, request: BaseMessage[], config: LangGraphRunnableConfig, deadline: number | undefined, clock: Clock): Promise<AIMessage | 'timeout'> {
  if (deadline === undefined) return model.invoke(request, config);
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => (controller.abort(new Error('timeoutMs elapsed')), resolve('timeout')), Math.max(0, deadline - clock.now()));
  });
  const signal = config.signal ? AbortSignal.any([config.signal, controller.signal]) : controller.signal;
  try {
    const call = model.invoke(request, { ...config, signal });
    call.catch(() => {}); // its rejection after the deadline is expected, and answered by 'timeout'
    return await Promise.race([call, expired]);
  } catch (error) {
    if (controller.signal.aborted) return 'timeout';
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** The run's totals after this response: tokens from its `usage_metadata`, cost at its model's price. */
function tally(settings: ModelCallSettings, react: ReactControllerState, response: AIMessage): Pick<ReactControllerState, 'inputTokens' | 'outputTokens' | 'costUsd' | 'model'> {
  const inputTokens = response.usage_metadata?.input_tokens ?? 0;
  const outputTokens = response.usage_metadata?.output_tokens ?? 0;
  const metadata = response.response_metadata as { model_name?: unknown; model?: unknown } | undefined;
  const model = String(metadata?.model_name ?? metadata?.model ?? react.model ?? 'unknown');
  const price = priceOf(settings.prices, model);
  if (!price && settings.maxCostUsd !== undefined) settings.warn(`[panoptes] maxCostUsd is set but \`prices\` has no price for model '${model}': its calls cost 0 in the budget. Add it to prices.`);
  return {
    inputTokens: react.inputTokens + inputTokens,
    outputTokens: react.outputTokens + outputTokens,
    costUsd: react.costUsd + (price ? costOf({ inputTokens, outputTokens }, price) : 0),
    model,
  };
}

function overBudgetReason(settings: ModelCallSettings, totals: Pick<ReactControllerState, 'inputTokens' | 'outputTokens' | 'costUsd'>): { code: 'budget_tokens' | 'budget_cost'; detail: string } | undefined {
  const code = budgetExceeded(totals, { maxTokens: settings.maxTokens, ...(settings.maxCostUsd === undefined ? {} : { maxCostUsd: settings.maxCostUsd }) });
  if (code === 'budget_tokens') {
    const detail = `the run used ${totals.inputTokens + totals.outputTokens} tokens; maxTokens is ${settings.maxTokens}`;
    if (settings.onTokenBudget === 'stop') return { code, detail };
    settings.warn(`[panoptes] ${detail}; going on (onTokenBudget: 'warn').`);
    // a warning does not hide a cost budget spent in the same call
    return settings.maxCostUsd !== undefined && totals.costUsd > settings.maxCostUsd ? { code: 'budget_cost', detail: `the run cost $${totals.costUsd.toFixed(4)}; maxCostUsd is $${settings.maxCostUsd}` } : undefined;
  }
  if (code === 'budget_cost') return { code, detail: `the run cost $${totals.costUsd.toFixed(4)}; maxCostUsd is $${settings.maxCostUsd}` };
  return undefined;
}

/**
 * Error observations for the tool calls whose arguments were not JSON (LangChain keeps them in `invalid_tool_calls`,
 * which `ToolNode` ignores): the model reads what was wrong, and the count is in the result.
 */
function malformedCallAnswers(response: AIMessage): ToolMessage[] {
  return (response.invalid_tool_calls ?? []).map(
    (call) =>
      new ToolMessage({
        content: `Your call to ${call.name ?? 'a tool'} was not run: its arguments are not a JSON object (${call.error ?? 'they did not parse'}). Call it again with valid JSON arguments.`,
        name: call.name ?? 'unknown',
        tool_call_id: call.id ?? '',
        status: 'error',
        response_metadata: { panoptes: { durationMs: 0, malformed: true } satisfies ToolCallRecord },
      }),
  );
}

function forgetLoops({ loops, failed }: ModelCallSettings, session: string): void {
  try {
    loops?.resetSession(session);
  } catch (error) {
    failed('loops.resetSession', error);
  }
}

/** The loop detector's pending hint for this call, after it saw the results of the previous one. */
async function loopHint(settings: ModelCallSettings, session: string, messages: BaseMessage[]) {
  const { loops, failed } = settings;
  if (!loops) return undefined;
  try {
    const toolResults = toolResultsAfterLastTurn(toChatMessages(messages));
    if (toolResults.length > 0) await loops.observe(session, { toolResults });
    return loops.takePendingHint(session);
  } catch (error) {
    failed('loops.observe', error);
    return undefined;
  }
}

async function observeStep(settings: ModelCallSettings, session: string, response: AIMessage): Promise<void> {
  const { loops, failed } = settings;
  if (!loops) return;
  try {
    const text = typeof response.content === 'string' ? response.content : response.text;
    await loops.observe(session, { text, toolCalls: (response.tool_calls ?? []).map(toToolCall), availableTools: settings.toolNames });
  } catch (error) {
    failed('loops.observe', error);
  }
}
