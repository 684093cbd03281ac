import { AsyncLocalStorage } from 'node:async_hooks';
import type { BaseMessage } from '@langchain/core/messages';
import { isGraphBubbleUp } from '@langchain/langgraph';
import { context as otelContext, type Attributes } from '@opentelemetry/api';
import { ATTR, type ReactRunSummary, type ReactRunTrace, type ReactTelemetry, type SPAN } from '../../../src/index.js';
import { evaluationMessages } from './evaluation.js';
import type { ReactControllerState } from './state.js';
import { toolCallRecord } from './tool-record.js';

/** What one traced invocation of a ReAct graph has seen so far: what its span and metrics report at its end. */
interface RunRecord {
  trace: ReactRunTrace;
  attributes: Attributes;
  react?: ReactControllerState;
  messages?: readonly BaseMessage[];
  verdict?: ReactRunSummary['verdict'];
}

// Node's own async context, not OpenTelemetry's: nodes find their invocation's record whether or not an
// OpenTelemetry context manager is registered (a meter alone still counts runs).
const runs = new AsyncLocalStorage<RunRecord>();

/** The trace of the invocation this code runs in; undefined when nothing records (no SDK). */
export function currentRunTrace(): ReactRunTrace | undefined {
  return runs.getStore()?.trace;
}

/**
 * Notes what a node saw or decided, for the invocation's span: the controller's state (merged key by key, as the
 * channel merges it), the thread's messages, a verification's verdict, more span attributes. Free when untraced.
 */
export function noteRun(update: { react?: Partial<ReactControllerState>; messages?: readonly BaseMessage[]; verdict?: ReactRunSummary['verdict']; attributes?: Attributes }): void {
  const run = runs.getStore();
  if (!run) return;
  if (update.react) run.react = { ...run.react, ...update.react } as ReactControllerState;
  if (update.messages) run.messages = update.messages;
  if (update.verdict) run.verdict = update.verdict;
  if (update.attributes) Object.assign(run.attributes, update.attributes);
}

/** How an invocation is traced: its span's name and first attributes, and whether a paused run is a verdict. */
export interface RunTraceSettings {
  telemetry: ReactTelemetry;
  spanName: typeof SPAN.verifyCriterion | typeof SPAN.reactRun;
  /** Attributes known from the input and config: the criterion's id, the thread. */
  attributes: (input: unknown, config: { configurable?: Record<string, unknown> }) => Attributes;
  /** A verification graph: a run that paused has the verdict `paused`. */
  verification: boolean;
}

/**
 * The invocation's generator, traced: a span around it, the nodes' work run with the span active (so foreign spans,
 * the monitor's, nest under it) and with the invocation's record at hand, and at its end the run's outcome on the
 * span, in the counter and in the histogram. A pause (an interrupt) is an outcome, not an error.
 */
export async function* tracedRun<Chunk>(settings: RunTraceSettings, input: unknown, config: { configurable?: Record<string, unknown> }, inner: AsyncGenerator<Chunk>): AsyncGenerator<Chunk> {
  const trace = settings.telemetry.startRun(settings.spanName, settings.attributes(input, config));
  const record: RunRecord = { trace, attributes: {} };
  let error: unknown;
  try {
    for (;;) {
      const step = await runs.run(record, () => otelContext.with(trace.context, () => inner.next()));
      if (step.done) return;
      yield step.value;
    }
  } catch (caught) {
    error = caught;
    throw caught;
  } finally {
    // a consumer that stops early closes this generator: the graph's own is closed with it
    if (error === undefined) await inner.return(undefined as never);
    settings.telemetry.endRun(trace, summaryOf(record, settings.verification), { attributes: record.attributes, error: isGraphBubbleUp(error) ? undefined : error });
  }
}

function summaryOf({ react, messages, verdict }: RunRecord, verification: boolean): ReactRunSummary | undefined {
  if (!react) return undefined;
  const cachedToolCalls = messages ? evaluationMessages(messages, react).filter((message) => toolCallRecord(message)?.cached).length : 0;
  const paused = react.status === 'running';
  return {
    status: react.status,
    ...(react.reasonCode && !paused ? { reasonCode: react.reasonCode } : {}),
    ...(react.detail && !paused ? { detail: react.detail } : {}),
    iterations: react.iterations,
    modelAttempts: react.modelAttempts,
    inputTokens: react.inputTokens,
    outputTokens: react.outputTokens,
    costUsd: react.costUsd,
    cachedToolCalls,
    fallbackUsed: react.fallbackUsed,
    ...(verification ? { verdict: paused ? { status: 'paused', confidence: 0, citations: [] } : verdict } : {}),
  };
}

/** The thread of a run, as `gen_ai.conversation.id`. */
export function threadAttributes(config: { configurable?: Record<string, unknown> }): Attributes {
  const thread = config.configurable?.thread_id;
  return typeof thread === 'string' || typeof thread === 'number' ? { [ATTR.conversationId]: String(thread) } : {};
}
