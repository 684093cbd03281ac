import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { Clock } from '../../../src/index.js';
import { blockOf } from '../../langchain/block-message.js';
import { ended } from './model-call.js';
import type { ReactControllerState, ReactGraphState } from './state.js';
import { toolCallRecord } from './tool-calls.js';

/** The limits the routers read. */
export interface RouteLimits {
  maxIterations: number;
  maxFinishRepairs: number;
  timeoutMs?: number;
  clock: Clock;
}

/** `finish` calls the schema rejected in this thread. */
export function invalidFinishes(messages: readonly BaseMessage[]): number {
  let count = 0;
  for (const message of messages) if (message.getType() === 'tool' && toolCallRecord(message)?.invalidFinish) count++;
  return count;
}

/** Where the run goes after the model answered: its tools, the model again (it called none), or the end. */
export function routeAfterModel(state: ReactGraphState): 'tools' | 'model' | 'settle' {
  if (state.react.status !== 'running') return 'settle';
  const answer = state.messages.findLast((message) => message.getType() === 'ai') as AIMessage | undefined;
  if (blockOf(answer)) return 'settle';
  if (answer?.tool_calls?.length) return 'tools';
  // No call (or only malformed ones, answered already): the model is nudged, or reads the errors, on its next call.
  return 'model';
}

/** Where the run goes after its tools: the end (finished, or a limit reached), else the model. */
export function routeAfterTools(limits: RouteLimits) {
  return function routeAfterToolCalls(state: ReactGraphState): 'model' | 'settle' {
    return state.react.status !== 'running' || stopReason(state, limits) ? 'settle' : 'model';
  };
}

/** Why a still-running run must end now, or undefined: a workflow block, repairs spent, iterations spent, time spent. */
function stopReason(state: ReactGraphState, { maxIterations, maxFinishRepairs, timeoutMs, clock }: RouteLimits): { code: NonNullable<ReactControllerState['reasonCode']>; detail: string } | undefined {
  const { react, messages } = state;
  const block = blockOf(messages.findLast((message) => message.getType() === 'ai'));
  if (block) return { code: 'workflow_blocked', detail: block.text };
  const invalid = invalidFinishes(messages);
  if (invalid > maxFinishRepairs) return { code: 'invalid_finish', detail: `finish was called with invalid arguments ${invalid} times; maxFinishRepairs is ${maxFinishRepairs}` };
  if (react.iterations >= maxIterations) return { code: 'budget_iterations', detail: `the run made maxIterations (${maxIterations}) model calls without a valid finish` };
  if (timeoutMs !== undefined && react.startedAt !== undefined && clock.now() >= react.startedAt + timeoutMs) return { code: 'timeout', detail: `the evaluation ran past timeoutMs (${timeoutMs} ms)` };
  return undefined;
}

/** The last node of every run: says why a run that is still `running` ends here, and when it ended. */
export function settleNode(limits: RouteLimits) {
  return function settle(state: ReactGraphState): { react: Partial<ReactControllerState> } {
    if (state.react.status !== 'running') return { react: { endedAt: state.react.endedAt ?? limits.clock.now() } };
    const reason = stopReason(state, limits) ?? { code: 'budget_iterations' as const, detail: 'the run ended without a valid finish' };
    return { react: ended({}, reason.code, reason.detail, limits.clock) };
  };
}
