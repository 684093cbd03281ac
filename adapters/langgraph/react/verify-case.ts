import { randomUUID } from 'node:crypto';
import { Command, INTERRUPT, isGraphInterrupt } from '@langchain/langgraph';
import { ATTR, createReactTelemetry, InvalidOptionError, mapWithConcurrency, SPAN, type TelemetryOptions } from '../../../src/index.js';
import { reactRuntimeOf } from './compiled-graph.js';
import { resumeCommand } from './resume.js';
import type { CaseBundle, Criterion, CriterionResult, PendingInterrupt, VerificationInput } from './verification-state.js';

/**
 * What `verifyCase`, `resumeCase` and `shadowVerifier` run: a compiled verification graph (what
 * `createVerificationGraph` returns), a shadow verifier, or anything with the same `invoke`.
 */
export interface VerificationRunner {
  // `any` in Command: a compiled graph's commands are typed by its own nodes and update.
  invoke(input: VerificationInput | Command<unknown, any, any>, config?: Record<string, unknown>): Promise<{ result?: CriterionResult | undefined }>;
  /** The thread's state: how a paused run's trace is read, and how `resumeCase` leaves the pause out of `timeoutMs`. */
  getState?(config: Record<string, unknown>): Promise<{ values: unknown; createdAt?: string }>;
  readonly checkpointer?: unknown;
}

/** Options of {@link verifyCase}; the telemetry options (the monitor's) trace the case, by default as the graph does. */
export interface VerifyCaseOptions extends TelemetryOptions {
  /** Criteria evaluated at once. @default 4 */
  concurrency?: number;
  /** The thread of each criterion's run, for a graph with a checkpointer. @default `<criterion id>-<random id>` */
  threadId?: (criterion: Criterion) => string;
  /** Passed to each run (callbacks, tags, a signal). */
  config?: Record<string, unknown>;
  /**
   * Keep each run's thread in the graph's checkpointer. By default a thread is deleted as soon as its result is in,
   * unless the run paused (`status: 'paused'`), whose thread a resume needs: verifying many cases leaves no
   * checkpoint behind.
   * @default false
   */
  keepThreads?: boolean;
}

/**
 * Evaluates every criterion of a case with the verification graph, at most `concurrency` at once, and returns the
 * results in the criteria's order. A run that pauses on an interrupt (a tool asking a human) gives a `paused`
 * result with its `threadId` and `interrupts`: answer it with {@link resumeCase}. A run that throws (a bug, a
 * checkpointer down) gives an `uncertain` result with the reason in `detail`, so one criterion never costs the
 * others. The case is a span (`panoptes.verify_case`) over the criteria's.
 * @throws {InvalidOptionError} when `criteria` is not a list or `concurrency` not a whole number above 0.
 * @example
 * const results = await verifyCase(verifier, caseBundle, policy.criteria, { concurrency: 10 });
 */
export async function verifyCase(graph: VerificationRunner, caseBundle: CaseBundle, criteria: readonly Criterion[], options: VerifyCaseOptions = {}): Promise<CriterionResult[]> {
  const { concurrency = 4, threadId, config = {}, keepThreads = false } = options;
  if (!Array.isArray(criteria)) throw new InvalidOptionError({ parameter: 'criteria', value: typeof criteria, fix: 'Pass a list of { id, text } criteria.' });
  if (!(Number.isInteger(concurrency) && concurrency > 0)) throw new InvalidOptionError({ parameter: 'concurrency', value: concurrency, fix: 'Pass a whole number above 0; the default is 4.' });
  const thread = threadId ?? (graph.checkpointer ? newThread : undefined);
  const telemetry = hasTelemetryOptions(options) ? createReactTelemetry(options) : (reactRuntimeOf(graph)?.telemetry ?? createReactTelemetry());
  const span = telemetry.startSpan(SPAN.verifyCase, { [ATTR.criteria]: criteria.length });
  const results = await telemetry.within(span, () =>
    mapWithConcurrency(criteria, concurrency, (criterion) => {
      // Without a thread, each run still names a session of its own: two runs of one criterion on two cases open with
      // the same message, and a monitor placing them by their conversation would take them for one.
      const runConfig = thread
        ? { ...config, configurable: { ...(config.configurable as object | undefined), thread_id: thread(criterion) } }
        : { ...config, metadata: { ...(config.metadata as object | undefined), session_id: newThread(criterion) } };
      return andForget(graph, keepThreads, runConfig, runCriterion(graph, { caseBundle, criterion }, criterion, runConfig, telemetry.redact));
    }),
  );
  telemetry.end(span, { [ATTR.statuses]: results.map((result) => result.status) });
  return results;
}

/**
 * Resumes a criterion `verifyCase` returned `paused`, with the answer to what it waits on (LangGraph's
 * `Command({ resume })`: one value, or a map of interrupt id to value when it waits on several), and returns its
 * result: the verdict, or `paused` again when it asks something else. The time it waited is left out of
 * `timeoutMs`. The graph (or a new instance of it) must share the checkpointer the run was kept in.
 * @throws {InvalidOptionError} when `paused` is not a paused result with a thread.
 * @example
 * const [result] = await verifyCase(verifier, caseBundle, criteria);
 * if (result.status === 'paused') await resumeCase(verifier, result, await askReviewer(result.interrupts![0].value));
 */
export async function resumeCase(graph: VerificationRunner, paused: CriterionResult, answer: unknown, { config = {}, keepThreads = false }: Pick<VerifyCaseOptions, 'config' | 'keepThreads'> = {}): Promise<CriterionResult> {
  if (paused?.status !== 'paused' || typeof paused.threadId !== 'string') {
    throw new InvalidOptionError({ parameter: 'paused', value: paused?.status, fix: "Pass a result verifyCase returned with status 'paused': it names the thread to resume." });
  }
  const runConfig = { ...config, configurable: { ...(config.configurable as object | undefined), thread_id: paused.threadId } };
  const command = graph.getState ? await resumeCommand(graph as Required<Pick<VerificationRunner, 'getState'>>, runConfig, answer) : new Command({ resume: answer });
  const redact = reactRuntimeOf(graph)?.telemetry.redact ?? ((text: string) => text);
  return andForget(graph, keepThreads, runConfig, runCriterion(graph, command, { id: paused.criterionId, text: '' }, runConfig, redact));
}

/**
 * The result, once its thread is deleted from the graph's checkpointer (unless kept, or paused: a resume needs it).
 * A checkpointer that cannot delete (one without `deleteThread`, or one that fails) keeps it; the result stands.
 */
async function andForget(graph: VerificationRunner, keep: boolean, config: Record<string, unknown>, running: Promise<CriterionResult>): Promise<CriterionResult> {
  const result = await running;
  const threadId = (config.configurable as { thread_id?: unknown } | undefined)?.thread_id;
  const checkpointer = graph.checkpointer as { deleteThread?: (threadId: string) => Promise<void> } | undefined | boolean;
  if (keep || result.status === 'paused' || typeof threadId !== 'string' || typeof checkpointer !== 'object' || typeof checkpointer?.deleteThread !== 'function') return result;
  await checkpointer.deleteThread(threadId).catch(() => undefined);
  return result;
}

/** One run of a criterion, as a result whatever happens: the verdict, a pause, or the failure. */
async function runCriterion(graph: VerificationRunner, input: VerificationInput | Command, criterion: Criterion, config: Record<string, unknown>, redact: (text: string) => string): Promise<CriterionResult> {
  const threadId = (config.configurable as { thread_id?: string } | undefined)?.thread_id;
  try {
    const output = (await graph.invoke(input, config)) as { result?: CriterionResult; [INTERRUPT]?: PendingInterrupt[] };
    const interrupts = output?.[INTERRUPT];
    if (Array.isArray(interrupts) && interrupts.length > 0) return pausedResult(graph, criterion, config, interrupts);
    return output?.result ?? failedResult(criterion, 'the run gave no result', threadId);
  } catch (error) {
    if (isGraphInterrupt(error) && threadId !== undefined) return pausedResult(graph, criterion, config, (error as { interrupts?: PendingInterrupt[] }).interrupts ?? []);
    return failedResult(criterion, redact(`the run failed: ${error instanceof Error ? error.message : String(error)}`), threadId);
  }
}

/** A paused run's result: what it waits on, and its trace and usage so far, read from its thread. */
async function pausedResult(graph: VerificationRunner, criterion: Criterion, config: Record<string, unknown>, interrupts: readonly PendingInterrupt[]): Promise<CriterionResult> {
  const threadId = (config.configurable as { thread_id?: string } | undefined)?.thread_id;
  const values = graph.getState ? (await graph.getState(config).catch(() => undefined))?.values : undefined;
  const resultOf = reactRuntimeOf(graph)?.resultOf;
  const sofar = values && resultOf ? (resultOf(values, threadId) as CriterionResult) : failedResult(criterion, '', threadId);
  const { reasonCode: _reason, detail: _detail, ...kept } = sofar;
  return {
    ...kept,
    criterionId: sofar.criterionId || criterion.id,
    status: 'paused',
    confidence: 0,
    citations: [],
    rejectedCitations: [],
    rationale: '',
    ...(threadId === undefined ? {} : { threadId }),
    interrupts: interrupts.map(({ id, value }) => ({ ...(id === undefined ? {} : { id }), value })),
  };
}

function newThread(criterion: Criterion): string {
  return `${criterion?.id ?? 'criterion'}-${randomUUID()}`;
}

function hasTelemetryOptions(options: TelemetryOptions): boolean {
  return options.tracer !== undefined || options.meter !== undefined || options.telemetry !== undefined || options.redactPatterns !== undefined || options.captureContent !== undefined;
}

/** The result of a run that gave none. */
function failedResult(criterion: Criterion, detail: string, threadId: string | undefined): CriterionResult {
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
    ...(threadId === undefined ? {} : { threadId }),
  };
}
