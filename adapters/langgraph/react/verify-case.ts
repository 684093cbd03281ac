import { randomUUID } from 'node:crypto';
import { isGraphBubbleUp } from '@langchain/langgraph';
import { InvalidOptionError, mapWithConcurrency } from '../../../src/index.js';
import type { VerificationGraph } from './verification-graph.js';
import type { CaseBundle, Criterion, CriterionResult } from './verification-state.js';

/** Options of {@link verifyCase}. */
export interface VerifyCaseOptions {
  /** Criteria evaluated at once. @default 4 */
  concurrency?: number;
  /** The thread of each criterion's run, for a graph with a checkpointer. @default `<criterion id>-<random id>` */
  threadId?: (criterion: Criterion) => string;
  /** Passed to each run (callbacks, tags, a signal). */
  config?: Record<string, unknown>;
}

/**
 * Evaluates every criterion of a case with the verification graph, at most `concurrency` at once, and returns the
 * results in the criteria's order. A run that throws (a bug, a checkpointer down) or pauses on an interrupt still
 * gives a result: `uncertain`, with the reason in `detail`, so one criterion never costs the others.
 * @throws {InvalidOptionError} when `criteria` is not a list or `concurrency` not a whole number above 0.
 * @example
 * const results = await verifyCase(verifier, caseBundle, policy.criteria, { concurrency: 10 });
 */
export async function verifyCase(graph: VerificationGraph, caseBundle: CaseBundle, criteria: readonly Criterion[], { concurrency = 4, threadId, config = {} }: VerifyCaseOptions = {}): Promise<CriterionResult[]> {
  if (!Array.isArray(criteria)) throw new InvalidOptionError({ parameter: 'criteria', value: typeof criteria, fix: 'Pass a list of { id, text } criteria.' });
  if (!(Number.isInteger(concurrency) && concurrency > 0)) throw new InvalidOptionError({ parameter: 'concurrency', value: concurrency, fix: 'Pass a whole number above 0; the default is 4.' });
  const thread = threadId ?? (graph.checkpointer ? newThread : undefined);
  return mapWithConcurrency(criteria, concurrency, async (criterion) => {
    // Without a thread, each run still names a session of its own: two runs of one criterion on two cases open with
    // the same message, and a monitor placing them by their conversation would take them for one.
    const runConfig = thread
      ? { ...config, configurable: { ...(config.configurable as object | undefined), thread_id: thread(criterion) } }
      : { ...config, metadata: { ...(config.metadata as object | undefined), session_id: newThread(criterion) } };
    try {
      const state = await graph.invoke({ caseBundle, criterion }, runConfig);
      return state.result ?? failedResult(criterion, 'the run paused before a result (an interrupt): resume its thread to finish it');
    } catch (error) {
      if (isGraphBubbleUp(error)) return failedResult(criterion, 'the run paused before a result (an interrupt): resume its thread to finish it');
      return failedResult(criterion, `the run failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}

function newThread(criterion: Criterion): string {
  return `${criterion?.id ?? 'criterion'}-${randomUUID()}`;
}

/** The result of a run that gave none. */
function failedResult(criterion: Criterion, detail: string): CriterionResult {
  return {
    criterionId: criterion?.id ?? '',
    status: 'uncertain',
    confidence: 0,
    citations: [],
    rejectedCitations: [],
    rationale: '',
    reasonCode: 'llm_error',
    detail,
    trace: [],
    usage: { iterations: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, wallTimeMs: 0, cachedToolCalls: 0, modelAttempts: 0, malformedToolCalls: 0 },
    promptId: '',
    model: 'unknown',
    fallbackUsed: false,
  };
}
