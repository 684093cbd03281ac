import type { Runnable } from '@langchain/core/runnables';
import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import { Command, isGraphBubbleUp, isNodeTimeoutError, type NodeError } from '@langchain/langgraph';
import type { Clock } from '../../../src/index.js';
import { evaluationMessages, stateAfterStart, updateAfterStart, type EvaluationStart } from './evaluation.js';
import type { FinishSchema } from './finish-tool.js';
import { ended } from './model-call.js';
import type { ReactFallbackContext } from './options.js';
import { noteRun } from './run-trace.js';
import type { ReactControllerState, ReactGraphState } from './state.js';

/** What the error handlers need from the graph's options. */
export interface ModelErrorSettings {
  fallbackModel?: Runnable<BaseMessage[], AIMessage>;
  fallbackFunction?: (context: ReactFallbackContext<any>) => unknown;
  /** Validates what the fallback function returns. */
  fallbackSchema: FinishSchema;
  maxAttempts: number;
  /** The errors the retry policy retried. */
  retryOn: (error: unknown) => boolean;
  /** Where a run that ends here goes. */
  exit: string;
  clock: Clock;
  /** Error text as it may enter `detail`: secrets redacted. */
  redact: (text: string) => string;
  /** The evaluation a new input on an ended thread begins (the graph without a `prepare` node), else undefined. */
  begin: (state: ReactGraphState) => EvaluationStart | undefined;
}

/**
 * The model node's `errorHandler`, after the retry policy gave up or at once for a permanent error: the fallback
 * model takes over (the model node runs again with it), or the fallback function gives the run's output from the
 * error, this evaluation's messages and the state; without either, the run ends `llm_error`.
 */
export function modelErrorHandler(settings: ModelErrorSettings) {
  const { fallbackModel, fallbackFunction, fallbackSchema, maxAttempts, retryOn, exit, clock, redact, begin } = settings;
  return async function onModelError(given: ReactGraphState, nodeError: NodeError): Promise<Command> {
    // The model node failed before its update applied: an evaluation it was beginning begins here instead.
    const start = begin(given);
    const state = start ? stateAfterStart(given, start) : given;
    const error = (nodeError as { error?: unknown }).error ?? nodeError;
    const attempts = state.react.modelAttempts + (retryOn(error) ? maxAttempts : 1);
    const detail = describeError(error, redact);
    const lastMessageId = state.messages.at(-1)?.id ?? state.react.lastMessageId;
    const go = (goto: string, react: Partial<ReactControllerState>) => {
      noteRun({ react: { ...state.react, ...react }, messages: state.messages });
      return new Command({ goto, update: updateAfterStart(start, { react: { ...react, ...(lastMessageId ? { lastMessageId } : {}) } }) });
    };
    if (!state.react.fallbackUsed && fallbackModel) return go('model', { fallbackUsed: true, modelAttempts: attempts, detail });
    if (!state.react.fallbackUsed && fallbackFunction) {
      try {
        const output = await fallbackFunction({ error, messages: [...evaluationMessages(state.messages, state.react)], state });
        const parsed = fallbackSchema.safeParse(output);
        if (parsed.success) return go(exit, { status: 'finished', output: parsed.data, outputSource: 'fallback', fallbackUsed: true, modelAttempts: attempts, endedAt: clock.now() });
        return go(exit, ended({ modelAttempts: attempts, fallbackUsed: true }, 'llm_error', `${detail}; the fallback's result does not match its schema`, clock));
      } catch (fallbackError) {
        if (isGraphBubbleUp(fallbackError)) throw fallbackError;
        return go(exit, ended({ modelAttempts: attempts, fallbackUsed: true }, 'llm_error', `${detail}; the fallback failed too: ${describeError(fallbackError, redact)}`, clock));
      }
    }
    return go(exit, ended({ modelAttempts: attempts }, 'llm_error', detail, clock));
  };
}

/** The tools step's `errorHandler`: a tools step past its timeout ends the run `timeout`, any other failure `tool_error`. */
export function toolsErrorHandler({ exit, clock, redact }: Pick<ModelErrorSettings, 'exit' | 'clock' | 'redact'>) {
  return function onToolsError(state: ReactGraphState, nodeError: NodeError): Command {
    const error = (nodeError as { error?: unknown }).error ?? nodeError;
    const reason = isNodeTimeoutError(error) ? ('timeout' as const) : ('tool_error' as const);
    const react = ended({}, reason, describeError(error, redact), clock);
    noteRun({ react: { ...state.react, ...react }, messages: state.messages });
    return new Command({ goto: exit, update: { react } });
  };
}

/** An error as `detail` carries it: its name, HTTP status and message, with secrets redacted (provider errors quote keys). */
export function describeError(error: unknown, redact: (text: string) => string): string {
  if (error instanceof Error) {
    const status = (error as { status?: unknown }).status;
    return redact(`${error.name}${status === undefined ? '' : ` (${String(status)})`}: ${error.message}`);
  }
  return redact(String(error));
}
