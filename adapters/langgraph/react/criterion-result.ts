import type { AIMessage, BaseMessage, ToolMessage } from '@langchain/core/messages';
import { truncateText, verifyCitations, type Citation } from '../../../src/index.js';
import { toolCallRecord } from './tool-calls.js';
import type { CriterionResult, CriterionStatus, TraceStep, VerificationState } from './verification-state.js';
import { retrievedDocuments } from './verification-tools.js';

/** What the verifier's `finish` carries. */
export interface VerificationFinish {
  status: CriterionStatus;
  confidence: number;
  citations: Citation[];
  rationale: string;
}

/**
 * The result of a run, from its final state. A `finish` is trusted only as far as the run supports it: each
 * citation must quote a document the run retrieved (the rest go to `rejectedCitations`); a `met` or `not_met` left
 * without a verified citation becomes `uncertain` (`unsupported`), and one below `abstainBelow` confidence becomes
 * `uncertain` (`low_confidence`). A run that ended without a `finish` is `uncertain` with its reason.
 */
export function criterionResult(state: VerificationState, { abstainBelow, promptId }: { abstainBelow: number; promptId: string }): CriterionResult {
  const { react, messages } = state;
  const trace = traceOf(messages);
  const usage = {
    iterations: react.iterations,
    inputTokens: react.inputTokens,
    outputTokens: react.outputTokens,
    costUsd: react.costUsd,
    wallTimeMs: react.startedAt !== undefined && react.endedAt !== undefined ? react.endedAt - react.startedAt : 0,
    cachedToolCalls: trace.filter((step) => step.cached).length,
    modelAttempts: react.modelAttempts,
    malformedToolCalls: react.malformedToolCalls,
  };
  const common = { criterionId: state.criterion?.id ?? '', trace, usage, promptId, model: react.model ?? 'unknown', fallbackUsed: react.fallbackUsed };
  if (react.status !== 'finished') {
    return { ...common, status: 'uncertain', confidence: 0, citations: [], rejectedCitations: [], rationale: '', ...(react.reasonCode ? { reasonCode: react.reasonCode } : {}), ...(react.detail ? { detail: react.detail } : {}) };
  }
  const finish = react.output as VerificationFinish;
  const { verified, rejected } = verifyCitations(finish.citations ?? [], retrievedDocuments(messages));
  const base = { ...common, confidence: finish.confidence, citations: verified, rejectedCitations: rejected, rationale: finish.rationale };
  if (finish.status !== 'uncertain' && verified.length === 0) {
    const detail = rejected.length > 0 ? `${rejected.length} citation(s) quote nothing this run retrieved` : 'the answer cites nothing';
    return { ...base, status: 'uncertain', reasonCode: 'unsupported', detail: `${finish.status} without a verified citation: ${detail}` };
  }
  if (finish.status !== 'uncertain' && finish.confidence < abstainBelow) {
    return { ...base, status: 'uncertain', reasonCode: 'low_confidence', detail: `${finish.status} at confidence ${finish.confidence}, below abstainBelow (${abstainBelow})` };
  }
  return { ...base, status: finish.status };
}

/** The run's steps: each tool call with the model's text of that turn and the answer it got. */
export function traceOf(messages: readonly BaseMessage[]): TraceStep[] {
  const answers = new Map<string, ToolMessage>();
  for (const message of messages) if (message.getType() === 'tool') answers.set((message as ToolMessage).tool_call_id, message as ToolMessage);
  const steps: TraceStep[] = [];
  for (const message of messages) {
    if (message.getType() !== 'ai') continue;
    const ai = message as AIMessage;
    const thought = typeof ai.content === 'string' ? ai.content : ai.text;
    const called = [...(ai.tool_calls ?? []).map((call) => ({ id: call.id, name: call.name, args: call.args })), ...(ai.invalid_tool_calls ?? []).map((call) => ({ id: call.id, name: call.name ?? 'unknown', args: { raw: call.args } }))];
    if (called.length === 0) steps.push({ thought, action: null, arguments: {}, observation: '', durationMs: 0 });
    for (const call of called) {
      const answer = call.id === undefined ? undefined : answers.get(call.id);
      const record = answer ? toolCallRecord(answer) : undefined;
      const observation = answer ? (typeof answer.content === 'string' ? answer.content : JSON.stringify(answer.content)) : '';
      steps.push({
        thought,
        action: call.name,
        arguments: call.args as Record<string, unknown>,
        observation: truncateText(observation, 500),
        durationMs: record?.durationMs ?? 0,
        ...(record?.cached ? { cached: true } : {}),
        ...(answer?.status === 'error' ? { error: true } : {}),
      });
    }
  }
  return steps;
}
