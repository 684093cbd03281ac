import { createHash } from 'node:crypto';
import { INTERRUPT, isCommand } from '@langchain/langgraph';
import { canonicalJson, InvalidOptionError, warnSafely, type Logger } from '../../../src/index.js';
import type { CriterionResult, CriterionStatus } from './verification-state.js';
import type { VerificationRunner } from './verify-case.js';

/** Which verifier judged a case: the one in use, or the one being tried. */
export type AbArm = 'primary' | 'candidate';

/** A labelled verdict: what a reviewer says the status of a case and criterion is. */
export interface AbLabel {
  caseId: string;
  criterionId: string;
  status: CriterionStatus;
}

/** One verdict of an A/B run, as `onResult` gets it. */
export interface AbResult {
  caseId: string;
  criterionId: string;
  arm: AbArm;
  result: CriterionResult;
  /** The run's wall time in this process, in milliseconds. */
  latencyMs: number;
  /** The labelled status of the pair, when the labelled set has it. */
  label?: CriterionStatus;
  /** Whether the verdict equals the label; absent without one. */
  agreed?: boolean;
}

/** Quality of one arm so far. */
export interface AbArmMetrics {
  /** Verdicts given (paused runs are counted once they end). */
  runs: number;
  /** Runs whose verdict is `uncertain`, and their share of `runs` (0 without runs). */
  uncertain: number;
  uncertainRate: number;
  /** Runs that ended without a verdict because the model or the retriever failed (`llm_error`, `retrieval_error`), or threw. */
  failures: number;
  /** Runs with a label, those whose status equals it, and their share (`null` without labelled runs). */
  labelled: number;
  agreed: number;
  agreement: number | null;
  /** Cost in USD as the runs report it (`usage.costUsd`), in all and per run. */
  costUsd: number;
  meanCostUsd: number;
  /** Wall time of the last {@link AB_LATENCY_WINDOW} runs, in milliseconds (0 without runs). */
  latencyMs: { mean: number; p50: number; p95: number };
}

/** What `abVerifier(...).metrics()` gives. */
export interface AbMetrics {
  /** The share of cases sent to the candidate (while not rolled back). */
  share: number;
  /** Whether every new case goes to the primary now. */
  rolledBack: boolean;
  primary: AbArmMetrics;
  candidate: AbArmMetrics;
}

/** Options of {@link abVerifier}. */
export interface AbVerifierOptions {
  /**
   * The share of cases in [0, 1] the candidate judges: 0.1, then 0.5 as its metrics hold up. Which cases is decided
   * by a hash of the case id, so a case always goes to the same arm (every criterion of it, every rerun).
   */
  share: number;
  /** Called with each verdict and its arm; its errors are logged once, counted, and never reach the caller. */
  onResult?: (result: AbResult) => void | Promise<void>;
  /** A labelled set: each run of a labelled pair counts for its arm's agreement. */
  labels?: Iterable<AbLabel>;
  /**
   * The rollback switch, read before each new case: `true` (or a function that returns true, a feature flag) sends
   * every new case to the primary at once. `rollback()` on the verifier throws the same switch for good.
   * @default false
   */
  rollback?: boolean | (() => boolean);
  /** Mixed into the hash, so two experiments over the same cases split them differently. @default '' */
  seed?: string;
  /** The case id of an input. @default its `caseBundle.id`, else a hash of the whole case */
  caseId?: (caseBundle: Record<string, unknown>) => string;
  /** Where a failing `onResult` or rollback flag is reported, once. @default console */
  logger?: Logger;
}

/** A verifier that sends a share of cases to a candidate, with quality metrics per arm and a rollback switch. */
export interface AbVerifier extends VerificationRunner {
  /** The arm a case goes to now (its hash, the share, the rollback switch). */
  arm(caseId: string): AbArm;
  /** Each arm's quality so far. */
  metrics(): AbMetrics;
  /** Sends every new case to the primary from now on. Runs in flight finish where they are. */
  rollback(): void;
  /** Failures of `onResult` and of the `rollback` flag function. */
  misses(): { callback: number; flag: number };
}

/** Runs whose wall times an arm keeps for its latency percentiles (the latest). */
export const AB_LATENCY_WINDOW = 1000;

/** Paused runs remembered (by thread) so their resumption goes to the arm that began them; the oldest go first past it. */
const PAUSED_THREADS_LIMIT = 10_000;

/**
 * The reference controller's second migration phase, an A/B split: a deterministic share of cases goes to the
 * candidate (sticky per case id, by hash), the rest to the primary, and each arm's quality is measured as the
 * verdicts come in: agreement with a labelled set, uncertain rate, cost, latency. A rollback switch sends every new
 * case back to the primary at once. Unlike `shadowVerifier`, each case runs once, on one arm: the candidate's
 * verdicts are the ones returned for its share.
 * @throws {InvalidOptionError} when `share` is not a number in [0, 1], or a label is not `{ caseId, criterionId, status }`.
 * @example
 * const verifier = abVerifier(heuristicGraph, createVerificationGraph({ model, retriever }), { share: 0.1, labels, onResult: (r) => log.info(r) });
 * await verifyCases(verifier, cases, criteria);
 * console.log(verifier.metrics());
 */
export function abVerifier(primary: VerificationRunner, candidate: VerificationRunner, options: AbVerifierOptions): AbVerifier {
  const { share, onResult, labels, rollback: rollbackOption = false, seed = '', caseId: caseIdOf = defaultCaseId, logger = console } = options;
  if (typeof share !== 'number' || !(share >= 0 && share <= 1)) {
    throw new InvalidOptionError({ parameter: 'share', value: share, fix: 'Pass the share of cases for the candidate, a number from 0 to 1 (0.1 sends a tenth of them).' });
  }
  const labelled = labelMap(labels);
  const arms = { primary: createArm(), candidate: createArm() };
  const misses = { callback: 0, flag: 0 };
  let rolledBackForGood = false;
  const pausedThreads = new Map<string, AbArm>();

  const isRolledBack = (): boolean => {
    if (rolledBackForGood) return true;
    if (typeof rollbackOption !== 'function') return rollbackOption === true;
    try {
      return rollbackOption() === true;
    } catch (error) {
      // A flag that cannot be read rolls back: the primary is the verifier known to work.
      if (misses.flag++ === 0) warnSafely(logger, '[panoptes] the A/B rollback flag threw; cases go to the primary while it does. Later failures are counted, not logged.', error);
      return true;
    }
  };
  const bucket = (caseId: string): number => parseInt(createHash('sha256').update(`${seed}\u0000${caseId}`).digest('hex').slice(0, 8), 16) / 0x1_0000_0000;
  const armOf = (caseId: string): AbArm => (!isRolledBack() && bucket(caseId) < share ? 'candidate' : 'primary');
  const runnerOf = (arm: AbArm) => (arm === 'candidate' ? candidate : primary);
  const threadOf = (config: Record<string, unknown> | undefined): string | undefined => {
    const thread = (config?.configurable as { thread_id?: unknown } | undefined)?.thread_id;
    return thread === undefined ? undefined : String(thread);
  };

  const report = async (result: AbResult) => {
    try {
      await onResult?.(result);
    } catch (error) {
      if (misses.callback++ === 0) warnSafely(logger, '[panoptes] the A/B onResult callback failed; the verdict is unaffected. Later failures are counted, not logged.', error);
    }
  };

  const verifier: AbVerifier & { readonly builder: unknown } = {
    get checkpointer() {
      return primary.checkpointer ?? candidate.checkpointer;
    },
    // The primary's graph, so verifyCase reads a paused run the way the primary's graph would.
    get builder() {
      return (primary as { builder?: unknown }).builder;
    },
    // A paused thread is read from the arm whose run paused there.
    getState:
      primary.getState || candidate.getState
        ? (config) => {
            const runner = runnerOf(pausedThreads.get(threadOf(config) ?? '') ?? 'primary');
            return (runner.getState ? runner : primary.getState ? primary : candidate).getState!(config);
          }
        : undefined,
    async invoke(input, config) {
      const thread = threadOf(config);
      // A resumption goes to the arm whose run paused, whatever the switch says now: the other has no such thread.
      const resumed = isCommand(input) ? pausedThreads.get(thread ?? '') : undefined;
      const bundle = isCommand(input) ? undefined : ((input as { caseBundle?: Record<string, unknown> }).caseBundle ?? {});
      const caseId = bundle === undefined ? (thread ?? '') : caseIdOf(bundle);
      const arm = resumed ?? (isCommand(input) ? 'primary' : armOf(caseId));
      const started = performance.now();
      let output: Awaited<ReturnType<VerificationRunner['invoke']>>;
      try {
        output = await runnerOf(arm).invoke(input, config);
      } catch (error) {
        arms[arm].failed();
        throw error;
      }
      const latencyMs = performance.now() - started;
      const result = output.result;
      if (thread !== undefined) pausedThreads.delete(thread);
      // A pause (the run waits on an interrupt) is no verdict yet: its resumption must find this arm.
      if (paused(output)) {
        if (thread !== undefined) remember(pausedThreads, thread, arm);
        return output;
      }
      if (!result) return output;
      const pairCase = bundle === undefined ? String((result as { caseId?: unknown }).caseId ?? caseId) : caseId;
      const label = labelled.get(pairKey(pairCase, result.criterionId));
      arms[arm].add(result, latencyMs, label);
      await report({ caseId: pairCase, criterionId: result.criterionId, arm, result, latencyMs, ...(label === undefined ? {} : { label, agreed: result.status === label }) });
      return output;
    },
    arm: (caseId) => armOf(String(caseId)),
    metrics: () => ({ share, rolledBack: isRolledBack(), primary: arms.primary.metrics(), candidate: arms.candidate.metrics() }),
    rollback() {
      rolledBackForGood = true;
    },
    misses: () => ({ ...misses }),
  };
  return verifier;
}

/** Whether an invocation's output is a pause: it waits on interrupts, and has no verdict yet. */
function paused(output: { result?: CriterionResult | undefined }): boolean {
  const interrupts = (output as { [INTERRUPT]?: unknown[] })[INTERRUPT];
  return (Array.isArray(interrupts) && interrupts.length > 0) || output.result?.status === 'paused';
}

/** An arm's running tallies. */
function createArm() {
  let runs = 0;
  let uncertain = 0;
  let failures = 0;
  let labelled = 0;
  let agreed = 0;
  let costUsd = 0;
  const latencies: number[] = [];
  return {
    failed() {
      failures++;
    },
    add(result: CriterionResult, latencyMs: number, label: CriterionStatus | undefined) {
      runs++;
      if (result.status === 'uncertain') uncertain++;
      if (result.reasonCode === 'llm_error' || result.reasonCode === 'retrieval_error') failures++;
      if (label !== undefined) {
        labelled++;
        if (result.status === label) agreed++;
      }
      costUsd += Number.isFinite(result.usage?.costUsd) ? result.usage.costUsd : 0;
      latencies.push(latencyMs);
      if (latencies.length > AB_LATENCY_WINDOW) latencies.shift();
    },
    metrics(): AbArmMetrics {
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (quantile: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))]!);
      return {
        runs,
        uncertain,
        uncertainRate: runs === 0 ? 0 : uncertain / runs,
        failures,
        labelled,
        agreed,
        agreement: labelled === 0 ? null : agreed / labelled,
        costUsd,
        meanCostUsd: runs === 0 ? 0 : costUsd / runs,
        latencyMs: { mean: sorted.length === 0 ? 0 : sorted.reduce((sum, value) => sum + value, 0) / sorted.length, p50: at(0.5), p95: at(0.95) },
      };
    },
  };
}

const STATUSES: ReadonlySet<string> = new Set(['met', 'not_met', 'uncertain']);

function labelMap(labels: Iterable<AbLabel> | undefined): Map<string, CriterionStatus> {
  const map = new Map<string, CriterionStatus>();
  if (labels === undefined) return map;
  let index = 0;
  for (const label of labels) {
    if (typeof label?.caseId !== 'string' || typeof label.criterionId !== 'string' || !STATUSES.has(label.status)) {
      throw new InvalidOptionError({ parameter: `labels[${index}]`, value: label, fix: "Pass { caseId, criterionId, status } with status 'met', 'not_met' or 'uncertain'." });
    }
    map.set(pairKey(label.caseId, label.criterionId), label.status);
    index++;
  }
  return map;
}

/** A case's id: its `id` field, else a hash of the whole case (the same case always hashes the same). */
function defaultCaseId(caseBundle: Record<string, unknown>): string {
  const id = caseBundle?.id;
  if (typeof id === 'string' || typeof id === 'number') return String(id);
  return createHash('sha256').update(canonicalJson(caseBundle ?? null)).digest('hex').slice(0, 16);
}

function pairKey(caseId: string, criterionId: string): string {
  return `${caseId}\u0000${criterionId}`;
}

function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > PAUSED_THREADS_LIMIT) map.delete(map.keys().next().value!);
}
