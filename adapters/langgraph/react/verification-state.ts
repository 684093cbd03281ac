import { Annotation } from '@langchain/langgraph';
import type { Citation, ReactReasonCode, RejectedCitation } from '../../../src/index.js';
import { ReactAnnotation } from './state.js';

/** Extracted fields of one case (a prior-authorization request, an expense claim): plain JSON. */
export type CaseBundle = Record<string, unknown>;

/** One requirement of the policy a case is checked against. */
export interface Criterion {
  id: string;
  /** The requirement, in the policy's words. */
  text: string;
}

/** What the verifier concluded about one criterion. */
export type CriterionStatus = 'met' | 'not_met' | 'uncertain';

/** A criterion's status in a result: a verdict, or `paused` while its run waits on an interrupt (a human review). */
export type CriterionResultStatus = CriterionStatus | 'paused';

/** An interrupt a paused run waits on: its id (to answer several at once) and what it asked. */
export interface PendingInterrupt {
  id?: string;
  value: unknown;
}

/** One step of a run's trace: what the model said, what it called with which arguments, and what it saw. */
export interface TraceStep {
  /** The model's text in the turn (its reasoning, when it gave any). */
  thought: string;
  /** The tool called; `null` for a turn that called none. */
  action: string | null;
  arguments: Record<string, unknown>;
  /** The tool's answer, cut to 500 characters. */
  observation: string;
  /** How long the tool ran, in milliseconds. */
  durationMs: number;
  /** The answer was an earlier identical call's. */
  cached?: boolean;
  /** The call failed or was refused: `observation` says why. */
  error?: boolean;
}

/** What a verification run used. */
export interface VerificationUsage {
  iterations: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  wallTimeMs: number;
  cachedToolCalls: number;
  modelAttempts: number;
  malformedToolCalls: number;
}

/** The verdict on one criterion, as the reference controller's `CriterionResult`. */
export interface CriterionResult {
  criterionId: string;
  /** The verdict; `paused` while the run waits on an interrupt (`threadId` and `interrupts` say where, and on what). */
  status: CriterionResultStatus;
  /** The model's confidence in [0, 1]; 0 when no model answered. */
  confidence: number;
  /** Citations whose quotes occur in a document this run retrieved. */
  citations: Citation[];
  /** Citations the model gave that could not be verified, and why. */
  rejectedCitations: RejectedCitation[];
  rationale: string;
  /** Why the status is `uncertain` (or was changed), when Panoptes says so. */
  reasonCode?: ReactReasonCode;
  /** The error or limit behind `reasonCode`, for developers. */
  detail?: string;
  trace: TraceStep[];
  usage: VerificationUsage;
  /** Which prompt produced the result, for comparing prompt versions. */
  promptId: string;
  /** The model that answered last, as the provider named it. */
  model: string;
  fallbackUsed: boolean;
  /** The thread the run is kept in, when the graph keeps checkpoints: where to resume it, read it, or delete it. */
  threadId?: string;
  /** What a `paused` run waits on: answer with `resumeCase`. */
  interrupts?: PendingInterrupt[];
  /** The model also read the thread's earlier evaluations (`history: 'keep'`). */
  continued?: boolean;
}

/** What a verification graph takes (its input schema): the case and the criterion. A new input on a thread begins a new evaluation. */
export const VerificationInputAnnotation = Annotation.Root({
  caseBundle: Annotation<CaseBundle>(),
  criterion: Annotation<Criterion>(),
});

/** What a verification graph gives back (its output schema): the result, and nothing of its working state. */
export const VerificationOutputAnnotation = Annotation.Root({
  result: Annotation<CriterionResult | undefined>(),
});

/**
 * The state of a verification graph: the ReAct state, the input (`caseBundle`, `criterion`) and the output
 * (`result`).
 */
export const VerificationAnnotation = Annotation.Root({
  ...ReactAnnotation.spec,
  ...VerificationInputAnnotation.spec,
  ...VerificationOutputAnnotation.spec,
});

/** The state of a verification graph, as its nodes read it. */
export type VerificationState = typeof VerificationAnnotation.State;

/** What a verification graph takes: `{ caseBundle, criterion }`. */
export type VerificationInput = typeof VerificationInputAnnotation.Update;

/** What a verification graph returns: `{ result }`. */
export type VerificationOutput = typeof VerificationOutputAnnotation.State;
