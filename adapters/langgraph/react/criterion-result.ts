import type { AIMessage, BaseMessage, ToolMessage } from '@langchain/core/messages';
import { truncateText, verifyCitations, type Citation } from '../../../src/index.js';
import { evaluationMessages } from './evaluation.js';
import { toolCallRecord } from './tool-record.js';
import type { FallbackVerdict } from './verification-fallback.js';
import type { CriterionResult, CriterionStatus, TraceStep, VerificationState, VerificationUsage } from './verification-state.js';
import { retrievedDocuments } from './verification-tools.js';

/** What the verifier's `finish` carries. */
export interface VerificationFinish {
  status: CriterionStatus;
  confidence: number;
  citations: Citation[];
  rationale: string;
}

/** How a result is made: the abstention threshold, the prompt's id, the redaction of what enters trace and detail. */
export interface CriterionResultOptions {
  abstainBelow: number;
  promptId: string;
  /** Case data and provider error text pass it before they enter `trace` or `detail`. @default no redaction */
  redact?: (text: string) => string;
  /** The run's thread, when the graph keeps checkpoints. */
  threadId?: string;
}

/**
 * The result of a run, from its final state. A `finish` is trusted only as far as the run supports it: each
 * citation must quote a document the run retrieved (the rest go to `rejectedCitations`); a `met` or `not_met` left
 * without a verified citation becomes `uncertain` (`unsupported`), and one below `abstainBelow` confidence becomes
 * `uncertain` (`low_confidence`). A run that ended without a `finish` is `uncertain` with its reason. A fallback
 * function's verdict is taken as it is: it is your code, not a model's claim.
 */
export function criterionResult(state: VerificationState, { abstainBelow, promptId, redact = (text) => text, threadId }: CriterionResultOptions): CriterionResult {
  const { react } = state;
  const messages = evaluationMessages(state.messages, react);
  const trace = traceOf(messages, redact);
  const common = {
    criterionId: state.criterion?.id ?? '',
    trace,
    usage: usageOf(react, trace),
    promptId,
    model: react.model ?? 'unknown',
    fallbackUsed: react.fallbackUsed,
    ...(threadId === undefined ? {} : { threadId }),
    ...(react.continued ? { continued: true } : {}),
  };
  const detail = (text: string | undefined) => (text ? { detail: redact(text) } : {});
  if (react.status !== 'finished') {
    return { ...common, status: 'uncertain', confidence: 0, citations: [], rejectedCitations: [], rationale: '', ...(react.reasonCode ? { reasonCode: react.reasonCode } : {}), ...detail(react.detail) };
  }
  if (react.outputSource === 'fallback') {
    const verdict = react.output as FallbackVerdict;
    return { ...common, status: verdict.status, confidence: verdict.confidence, citations: verdict.citations ?? [], rejectedCitations: [], rationale: verdict.rationale, ...(verdict.reasonCode ? { reasonCode: verdict.reasonCode } : {}), ...detail(verdict.detail) };
  }
  const finish = react.output as VerificationFinish;
  const { verified, rejected } = verifyCitations(finish.citations ?? [], retrievedDocuments(messages));
  const base = { ...common, confidence: finish.confidence, citations: verified, rejectedCitations: rejected, rationale: finish.rationale };
  if (finish.status !== 'uncertain' && verified.length === 0) {
    const why = rejected.length > 0 ? `${rejected.length} citation(s) quote nothing this run retrieved` : 'the answer cites nothing';
    return { ...base, status: 'uncertain', reasonCode: 'unsupported', detail: `${finish.status} without a verified citation: ${why}` };
  }
  if (finish.status !== 'uncertain' && finish.confidence < abstainBelow) {
    return { ...base, status: 'uncertain', reasonCode: 'low_confidence', detail: `${finish.status} at confidence ${finish.confidence}, below abstainBelow (${abstainBelow})` };
  }
  return { ...base, status: finish.status };
}

/** What a run used, from its controller state and its trace. */
export function usageOf(react: VerificationState['react'], trace: readonly TraceStep[]): VerificationUsage {
  return {
    iterations: react.iterations,
    inputTokens: react.inputTokens,
    outputTokens: react.outputTokens,
    costUsd: react.costUsd,
    wallTimeMs: react.startedAt !== undefined && react.endedAt !== undefined ? react.endedAt - react.startedAt : 0,
    cachedToolCalls: trace.filter((step) => step.cached).length,
    modelAttempts: react.modelAttempts,
    malformedToolCalls: react.malformedToolCalls,
  };
}

/**
 * The run's steps: each tool call with the model's text of that turn and the answer it got. `redact` is applied to
 * the text, the arguments and the answers (the case's data and the tools' errors pass through them).
 */
export function traceOf(messages: readonly BaseMessage[], redact: (text: string) => string = (text) => text): TraceStep[] {
  const answers = new Map<string, ToolMessage>();
  for (const message of messages) if (message.getType() === 'tool') answers.set((message as ToolMessage).tool_call_id, message as ToolMessage);
  const steps: TraceStep[] = [];
  for (const message of messages) {
    if (message.getType() !== 'ai') continue;
    const ai = message as AIMessage;
    const thought = typeof ai.content === 'string' ? ai.content : ai.text;
    const called = [...(ai.tool_calls ?? []).map((call) => ({ id: call.id, name: call.name, args: call.args })), ...(ai.invalid_tool_calls ?? []).map((call) => ({ id: call.id, name: call.name ?? 'unknown', args: { raw: call.args } }))];
    if (called.length === 0) steps.push({ thought: redact(thought), action: null, arguments: {}, observation: '', durationMs: 0 });
    for (const call of called) {
      const answer = call.id === undefined ? undefined : answers.get(call.id);
      const record = answer ? toolCallRecord(answer) : undefined;
      const observation = answer ? (typeof answer.content === 'string' ? answer.content : JSON.stringify(answer.content)) : '';
      steps.push({
        thought: redact(thought),
        action: call.name,
        arguments: redactedValues(call.args as Record<string, unknown>, redact),
        observation: truncateText(redact(observation), 500),
        durationMs: record?.durationMs ?? 0,
        ...(record?.cached ? { cached: true } : {}),
        ...(answer?.status === 'error' ? { error: true } : {}),
      });
    }
  }
  return steps;
}

/** The arguments with `redact` applied to every string in them. */
function redactedValues<Value>(value: Value, redact: (text: string) => string): Value {
  if (typeof value === 'string') return redact(value) as Value;
  if (Array.isArray(value)) return value.map((item) => redactedValues(item, redact)) as Value;
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactedValues(item, redact)])) as Value;
  return value;
}
