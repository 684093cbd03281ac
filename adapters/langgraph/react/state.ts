import { Annotation, MessagesAnnotation } from '@langchain/langgraph';
import type { ReactReasonCode } from '../../../src/index.js';
import { PanoptesAnnotation } from '../state.js';

/** Where a ReAct run stands: still reasoning, finished with a validated `finish`, or ended without one. */
export type ReactStatus = 'running' | 'finished' | 'uncertain';

/**
 * The controller's own state, beside the messages: counters the budgets are checked against, and how the run ended.
 * Plain JSON, so a checkpointer persists it with the thread.
 */
export interface ReactControllerState {
  status: ReactStatus;
  /** Why the run ended `uncertain` (a budget, an error), when it did. */
  reasonCode?: ReactReasonCode;
  /** The error or limit behind `reasonCode`, for developers. */
  detail?: string;
  /** The validated arguments of `finish` (or what a fallback function returned). */
  output?: unknown;
  /** Model calls that answered. */
  iterations: number;
  /** Model call attempts, failed ones included (retries). */
  modelAttempts: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Tool calls the model sent with arguments that are not JSON: each answered with an error observation. */
  malformedToolCalls: number;
  /** The fallback answered: its model took over, or its function gave the result. */
  fallbackUsed: boolean;
  /** The model the last answer came from, as the provider named it. */
  model?: string;
  /** A key of this evaluation, made at its first model call: the session of the loop detector when the run names none. */
  runKey?: string;
  /** When the evaluation's first model call started (ms since the epoch): `timeoutMs` counts from here. */
  startedAt?: number;
  /** When the run ended. */
  endedAt?: number;
}

/** The state of a run that has not started. */
export function initialControllerState(): ReactControllerState {
  return { status: 'running', iterations: 0, modelAttempts: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, malformedToolCalls: 0, fallbackUsed: false };
}

/**
 * The state of `createReactGraph`'s graphs: the messages, the monitor's session channel, and `react`, the
 * controller's state. Updates to `react` merge key by key, so tools of one step may each set their part.
 * @example
 * const state = await graph.compile().invoke({ messages: [new HumanMessage('Is MRI covered?')] });
 * state.react.status // 'finished'
 */
export const ReactAnnotation = Annotation.Root({
  ...MessagesAnnotation.spec,
  ...PanoptesAnnotation.spec,
  react: Annotation<ReactControllerState, Partial<ReactControllerState>>({
    reducer: (current, update) => ({ ...current, ...update }),
    default: initialControllerState,
  }),
});

/** The state of a ReAct graph, as its nodes read it. */
export type ReactGraphState = typeof ReactAnnotation.State;
