import type { JudgeInput } from './input.js';
import type { Judge, Judgment } from './judge.js';
import { auroc, expectedCalibrationError, suggestPassAt, tprAtFpr, type PassAtSuggestion } from './metrics.js';

/** One labelled case: an input, whether the judge should fail it, and the run it belongs to. */
export interface LabelledCase {
  input: JudgeInput;
  /** `true` (or 1) when the rubric should fail this input: a violation. */
  label: boolean | 0 | 1;
  /** The rubric to judge; without it, the calibration's `rubric`. */
  rubric?: string;
  /** Groups cases into runs, for calls and tokens per run. @default each case is a run */
  run?: string;
}

/** Options of {@link calibrateJudge}. */
export interface CalibrateOptions {
  /** The rubric of cases that name none. */
  rubric?: string;
  /** The false-positive rate the suggested `pass_at` keeps to. @default 0.01 */
  targetFpr?: number;
  /** Judgments at once. @default 4 */
  concurrency?: number;
}

/** What `calibrateJudge` (and `panoptes judge calibrate`) reports. */
export interface CalibrationReport {
  cases: number;
  violations: number;
  nonViolations: number;
  /** Cases without a verdict (timeout, budget, invalid or ungrounded answers); left out of the metrics below. */
  errors: number;
  auroc: number;
  tprAt1PercentFpr: number;
  tprAt5PercentFpr: number;
  /** Of `1 - score` as the probability of a violation, over 10 bins. */
  expectedCalibrationError: number;
  runs: number;
  modelCalls: number;
  tokens: number;
  callsPerRun: number;
  tokensPerRun: number;
  /** US dollars spent, when some call's usage was reported and the judge has its model's price. */
  costUsd?: number;
  costPerRun?: number;
  targetFpr: number;
  /** The highest `pass_at` whose false-positive rate here is at most `targetFpr`. */
  suggested?: PassAtSuggestion;
}

/**
 * Runs a judge over labelled cases and reports how well its scores separate violations from the rest: AUROC, the
 * true-positive rate at 1% and 5% false positives, expected calibration error, model calls and tokens per run, and a
 * suggested `pass_at` for a target false-positive rate.
 * @example
 * const report = await calibrateJudge(judge, cases, { rubric: 'outgoing_mail', targetFpr: 0.01 });
 */
export async function calibrateJudge(judge: Judge, cases: readonly LabelledCase[], { rubric, targetFpr = 0.01, concurrency = 4 }: CalibrateOptions = {}): Promise<CalibrationReport> {
  const judgments: Judgment[] = new Array<Judgment>(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const index = next++;
      const item = cases[index]!;
      judgments[index] = await judge.judge(item.rubric ?? rubric ?? judge.rubrics[0]!.id, item.input);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, cases.length)) }, worker));
  return calibrationReport(cases, judgments, targetFpr);
}

/** The report from cases and their judgments, in the same order (pure; what `calibrateJudge` computes). */
export function calibrationReport(cases: readonly LabelledCase[], judgments: readonly Judgment[], targetFpr = 0.01): CalibrationReport {
  const scores: number[] = [];
  const labels: boolean[] = [];
  const runs = new Map<string, { calls: number; tokens: number }>();
  let errors = 0;
  let modelCalls = 0;
  let tokens = 0;
  let costUsd: number | undefined;
  judgments.forEach((judgment, index) => {
    const item = cases[index]!;
    const run = item.run ?? `#${index}`;
    const totals = runs.get(run) ?? { calls: 0, tokens: 0 };
    // An ensemble's judgment is one call per member the budget let through.
    const asked = !judgment.cached && judgment.outcome !== 'skipped';
    const called = !asked ? 0 : judgment.ensemble ? judgment.ensemble.members.filter((member) => member.error?.kind !== 'budget').length : judgment.error?.kind === 'budget' ? 0 : 1;
    const used = (judgment.usage?.inputTokens ?? 0) + (judgment.usage?.outputTokens ?? 0);
    totals.calls += called;
    totals.tokens += used;
    runs.set(run, totals);
    modelCalls += called;
    tokens += used;
    if (judgment.costUsd !== undefined) costUsd = (costUsd ?? 0) + judgment.costUsd;
    if (!judgment.verdict) {
      errors++;
      return;
    }
    scores.push(judgment.verdict.score);
    labels.push(Boolean(item.label));
  });
  const risks = scores.map((score) => 1 - score);
  const violations = labels.filter(Boolean).length;
  const suggested = suggestPassAt(scores, labels, targetFpr);
  return {
    cases: cases.length,
    violations,
    nonViolations: labels.length - violations,
    errors,
    auroc: auroc(risks, labels),
    tprAt1PercentFpr: tprAtFpr(risks, labels, 0.01),
    tprAt5PercentFpr: tprAtFpr(risks, labels, 0.05),
    expectedCalibrationError: expectedCalibrationError(risks, labels),
    runs: runs.size,
    modelCalls,
    tokens,
    callsPerRun: runs.size === 0 ? 0 : modelCalls / runs.size,
    tokensPerRun: runs.size === 0 ? 0 : tokens / runs.size,
    ...(costUsd === undefined ? {} : { costUsd, costPerRun: runs.size === 0 ? 0 : costUsd / runs.size }),
    targetFpr,
    ...(suggested ? { suggested } : {}),
  };
}
