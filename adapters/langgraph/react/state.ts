import { Annotation, MessagesAnnotation, type BinaryOperatorAggregate } from '@langchain/langgraph';
import type { ReactReasonCode } from '../../../src/index.js';
import { PanoptesAnnotation } from '../state.js';

/** Where a ReAct run stands: still reasoning, finished with a validated `finish`, or ended without one. */
export type ReactStatus = 'running' | 'finished' | 'uncertain';

/**
 * The controller's own state, beside the messages: counters the budgets are checked against, and how the run ended.
 * Plain JSON, so a checkpointer persists it with the thread.
 */
export interface ReactControllerState<Output = unknown> {
  status: ReactStatus;
  /** Why the run ended `uncertain` (a budget, an error), when it did. */
  reasonCode?: ReactReasonCode;
  /** The error or limit behind `reasonCode`, for developers. */
  detail?: string;
  /** The validated arguments of `finish` (or what a fallback function returned). */
  output?: Output;
  /** Where `output` came from: the model's `finish`, or the fallback function. */
  outputSource?: 'finish' | 'fallback';
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
  /** Evaluations begun on this thread, this one included: each new input on the thread begins one. */
  evaluation?: number;
  /** The model also read the thread's earlier evaluations (`history: 'keep'`). */
  continued?: boolean;
  /** The id of this evaluation's first message: its trace, cache, citations and repairs start there. */
  openingMessageId?: string;
  /** The id of the last message the controller wrote or read: a next input on the thread begins after it. */
  lastMessageId?: string;
}

/** The state of a run that has not started. */
export function initialControllerState(): ReactControllerState {
  return { status: 'running', iterations: 0, modelAttempts: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, malformedToolCalls: 0, fallbackUsed: false };
}

/**
 * The update that begins a new evaluation on a thread: every counter at zero and every field of the previous
 * evaluation cleared (named as undefined, since `react` updates merge key by key).
 */
export function freshControllerState(fields: Pick<ReactControllerState, 'evaluation' | 'continued' | 'openingMessageId' | 'lastMessageId'>): ReactControllerState {
  // `satisfies` names every field, so one added later is cleared here too
  const cleared = { ...initialControllerState(), reasonCode: undefined, detail: undefined, output: undefined, outputSource: undefined, model: undefined, runKey: undefined, startedAt: undefined, endedAt: undefined, evaluation: undefined, continued: undefined, openingMessageId: undefined, lastMessageId: undefined } satisfies { [Key in keyof Required<ReactControllerState>]: unknown };
  return { ...cleared, ...fields };
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

/** The state of a ReAct graph, as its nodes read it; `react.output` is what `finish` parses. */
export type ReactGraphState<Output = unknown> = Omit<typeof ReactAnnotation.State, 'react'> & { react: ReactControllerState<Output> };

/** {@link ReactAnnotation}'s channels with `react.output` typed as `Output`: the state definition of a typed graph. */
export type ReactStateDefinition<Output = unknown> = Omit<typeof ReactAnnotation.spec, 'react'> & { react: BinaryOperatorAggregate<ReactControllerState<Output>, Partial<ReactControllerState<Output>>> };

/** What a ReAct graph takes (its input schema): the messages of the question. */
export const ReactInputAnnotation = Annotation.Root({ messages: ReactAnnotation.spec.messages });

/** What a ReAct graph gives back (its output schema): the messages and the controller's state, not the monitor's session. */
export const ReactOutputAnnotation = Annotation.Root({ messages: ReactAnnotation.spec.messages, react: ReactAnnotation.spec.react });

/** {@link ReactOutputAnnotation}'s channels with `react.output` typed as `Output`. */
export type ReactOutputDefinition<Output = unknown> = Pick<ReactStateDefinition<Output>, 'messages' | 'react'>;
