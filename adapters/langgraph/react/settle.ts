import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { Clock } from '../../../src/index.js';
import { blockOf } from '../../langchain/block-message.js';
import { evaluationMessages } from './evaluation.js';
import { ended } from './model-call.js';
import { noteRun } from './run-trace.js';
import type { ReactControllerState, ReactGraphState } from './state.js';
import { toolCallRecord } from './tool-record.js';

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

/**
 * Where the run goes after the model answered: its tools, the model again (it called none), `settle` (a workflow
 * block, which the model node did not record), or straight to `exit` when the model node already ended the run.
 */
export function routeAfterModel(exit: string) {
  return function routeAfterModelCall(state: Pick<ReactGraphState, 'messages' | 'react'>): string {
    if (state.react.status !== 'running') return exit;
    const answer = state.messages.findLast((message) => message.getType() === 'ai') as AIMessage | undefined;
    if (blockOf(answer)) return 'settle';
    if (answer?.tool_calls?.length) return 'tools';
    // No call (or only malformed ones, answered already): the model is nudged, or reads the errors, on its next call.
    return 'model';
  };
}

/**
 * Where the run goes after its tools: `exit` when a tool ended it (finish, a failed retrieval), `settle` when a limit
 * is reached (it records which), else the model. A finished run skips `settle`: one step fewer per run.
 */
export function routeAfterTools(limits: RouteLimits, exit: string) {
  return function routeAfterToolCalls(state: ReactGraphState): string {
    noteRun(state);
    if (state.react.status !== 'running') return exit;
    return stopReason(state, limits) ? 'settle' : 'model';
  };
}

/** Why a still-running run must end now, or undefined: a workflow block, repairs spent, iterations spent, time spent. */
function stopReason(state: ReactGraphState, { maxIterations, maxFinishRepairs, timeoutMs, clock }: RouteLimits): { code: NonNullable<ReactControllerState['reasonCode']>; detail: string } | undefined {
  const { react, messages } = state;
  const block = blockOf(messages.findLast((message) => message.getType() === 'ai'));
  if (block) return { code: 'workflow_blocked', detail: block.text };
  const invalid = invalidFinishes(evaluationMessages(messages, react));
  if (invalid > maxFinishRepairs) return { code: 'invalid_finish', detail: `finish was called with invalid arguments ${invalid} times; maxFinishRepairs is ${maxFinishRepairs}` };
  if (react.iterations >= maxIterations) return { code: 'budget_iterations', detail: `the run made maxIterations (${maxIterations}) model calls without a valid finish` };
  if (timeoutMs !== undefined && react.startedAt !== undefined && clock.now() >= react.startedAt + timeoutMs) return { code: 'timeout', detail: `the evaluation ran past timeoutMs (${timeoutMs} ms)` };
  return undefined;
}

/** Ends a run that a router stopped (a limit, a workflow block): says why, and when. */
export function settleNode(limits: RouteLimits) {
  return function settle(state: ReactGraphState): { react: Partial<ReactControllerState> } {
    const reason = state.react.status === 'running' ? (stopReason(state, limits) ?? { code: 'budget_iterations' as const, detail: 'the run ended without a valid finish' }) : undefined;
    const react = reason ? ended({}, reason.code, reason.detail, limits.clock) : { endedAt: state.react.endedAt ?? limits.clock.now() };
    noteRun({ react });
    return { react };
  };
}
