import { randomUUID } from 'node:crypto';
import { InvalidOptionError } from '../../../src/index.js';
import type { CaseBundle, Criterion, CriterionResult } from './verification-state.js';
import { verifyCase, type VerificationRunner } from './verify-case.js';

/** One case of a job: its id, and the fields the verifier reads. */
export interface CaseToVerify {
  id: string;
  caseBundle: CaseBundle;
}

/** A result of a job: the criterion's result with the case it is about. */
export type CaseCriterionResult = CriterionResult & { caseId: string };

/** Options of {@link verifyCases}. */
export interface VerifyCasesOptions {
  /** Runs (a case and a criterion) in flight at once, across cases. @default 4 */
  concurrency?: number;
  /** Pairs already done (a resumed job): they are not run again. */
  skip?: (caseId: string, criterionId: string) => boolean;
  /** Receives each result as its run ends, in the order they end; awaited before its slot takes the next run. */
  onResult?: (result: CaseCriterionResult) => void | Promise<void>;
  /**
   * Keep each run's thread in the graph's checkpointer. By default a thread is deleted as soon as its result is in,
   * unless the run paused (`status: 'paused'`), whose thread a resume needs: a job of thousands of runs leaves no
   * checkpoint behind.
   * @default false
   */
  keepThreads?: boolean;
  /** Stops taking new runs once aborted; the runs in flight finish and are reported. */
  signal?: AbortSignal;
  /** Passed to each run (callbacks, tags, metadata). */
  config?: Record<string, unknown>;
}

/** What {@link verifyCases} did. */
export interface VerifyCasesSummary {
  /** Runs made. */
  verified: number;
  /** Pairs `skip` left out. */
  skipped: number;
  /** Whether `signal` stopped the job before every pair was taken. */
  stopped: boolean;
}

/**
 * Runs every criterion on every case, at most `concurrency` runs at once across all of them (a slow case does not
 * hold the others back), handing each result to `onResult` as it ends. Cases are read from the iterable as runs
 * free up, and no result is kept, so a job of any size runs in bounded memory. Each run goes through
 * {@link verifyCase}, so one that throws still gives a result. With a checkpointer, each run gets a thread of its
 * own (`<case id>:<criterion id>:<random>`), deleted once its result is in (see `keepThreads`).
 * @throws {InvalidOptionError} when `criteria` is not a list or `concurrency` not a whole number above 0.
 * @example
 * await verifyCases(verifier, cases, criteria, { concurrency: 20, onResult: (result) => out.write(`${JSON.stringify(result)}\n`) });
 */
export async function verifyCases(graph: VerificationRunner, cases: Iterable<CaseToVerify> | AsyncIterable<CaseToVerify>, criteria: readonly Criterion[], options: VerifyCasesOptions = {}): Promise<VerifyCasesSummary> {
  const { concurrency = 4, skip, onResult, keepThreads = false, signal, config = {} } = options;
  if (!Array.isArray(criteria)) throw new InvalidOptionError({ parameter: 'criteria', value: typeof criteria, fix: 'Pass a list of { id, text } criteria.' });
  if (!(Number.isInteger(concurrency) && concurrency > 0)) throw new InvalidOptionError({ parameter: 'concurrency', value: concurrency, fix: 'Pass a whole number above 0; the default is 4.' });
  const summary: VerifyCasesSummary = { verified: 0, skipped: 0, stopped: false };
  const pairs = pairsOf(cases, criteria, skip, summary);
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure) {
      if (signal?.aborted) {
        summary.stopped = true;
        return;
      }
      const next = await pairs.next();
      if (next.done) return;
      const { item, criterion } = next.value;
      const thread = graph.checkpointer ? `${item.id}:${criterion.id}:${randomUUID().slice(0, 8)}` : undefined;
      try {
        const [result] = await verifyCase(graph, item.caseBundle, [criterion], { concurrency: 1, config, keepThreads, ...(thread ? { threadId: () => thread } : {}) });
        summary.verified++;
        await onResult?.({ caseId: item.id, ...result! });
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (failure) throw failure.error;
  return summary;
}

/** The pairs to run, case by case, criteria in order; one generator shared by the workers (its steps never overlap). */
async function* pairsOf(cases: Iterable<CaseToVerify> | AsyncIterable<CaseToVerify>, criteria: readonly Criterion[], skip: VerifyCasesOptions['skip'], summary: VerifyCasesSummary): AsyncGenerator<{ item: CaseToVerify; criterion: Criterion }> {
  for await (const item of cases) {
    for (const criterion of criteria) {
      if (skip?.(item.id, criterion.id)) summary.skipped++;
      else yield { item, criterion };
    }
  }
}
