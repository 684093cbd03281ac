/**
 * Calibration metrics of a judge, pure: from scores and labels to AUROC, true-positive rates at fixed false-positive
 * rates, expected calibration error and a suggested `pass_at`. Labels: `true` for a case the judge should fail (a
 * violation). A "risk" is higher for a likelier violation (`1 - score` of a verdict).
 */

/**
 * The area under the ROC curve: the chance that a random violation has a higher risk than a random non-violation,
 * ties counting half (the Mann-Whitney U statistic over both counts). Sorts once: O(n log n).
 * @returns NaN when either class is empty.
 * @example
 * auroc([0.9, 0.8, 0.3], [true, false, false]) // 1
 */
export function auroc(risks: readonly number[], labels: readonly boolean[]): number {
  const positives = labels.filter(Boolean).length;
  const negatives = labels.length - positives;
  if (positives === 0 || negatives === 0) return Number.NaN;
  const order = risks.map((risk, index) => ({ risk, positive: labels[index]! })).sort((a, b) => a.risk - b.risk);
  let rankSum = 0;
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.risk === order[start]!.risk) end++;
    const averageRank = (start + end) / 2 + 1; // ranks from 1, ties share their average
    for (let index = start; index <= end; index++) if (order[index]!.positive) rankSum += averageRank;
    start = end + 1;
  }
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

/**
 * The highest true-positive rate of a threshold "risk >= t flags" whose false-positive rate is at most `maxFpr`.
 * Every distinct risk is tried as a threshold, and a threshold above every risk (nothing flagged).
 * @returns NaN when either class is empty.
 */
export function tprAtFpr(risks: readonly number[], labels: readonly boolean[], maxFpr: number): number {
  const positives = labels.filter(Boolean).length;
  const negatives = labels.length - positives;
  if (positives === 0 || negatives === 0) return Number.NaN;
  const order = risks.map((risk, index) => ({ risk, positive: labels[index]! })).sort((a, b) => b.risk - a.risk);
  let best = 0;
  let truePositives = 0;
  let falsePositives = 0;
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.risk === order[start]!.risk) end++;
    for (let index = start; index <= end; index++) order[index]!.positive ? truePositives++ : falsePositives++;
    if (falsePositives / negatives <= maxFpr) best = Math.max(best, truePositives / positives);
    start = end + 1;
  }
  return best;
}

/**
 * Expected calibration error of probabilities of a violation: the mean, over `bins` equal-width bins weighted by
 * their size, of |mean probability - share of violations|. 0 is perfectly calibrated.
 * @returns NaN for no cases.
 */
export function expectedCalibrationError(probabilities: readonly number[], labels: readonly boolean[], bins = 10): number {
  if (probabilities.length === 0) return Number.NaN;
  const sums = Array.from({ length: bins }, () => ({ count: 0, probability: 0, positives: 0 }));
  probabilities.forEach((probability, index) => {
    const bin = sums[Math.min(bins - 1, Math.max(0, Math.floor(probability * bins)))]!;
    bin.count++;
    bin.probability += probability;
    if (labels[index]) bin.positives++;
  });
  return sums.reduce((total, bin) => (bin.count === 0 ? total : total + (bin.count / probabilities.length) * Math.abs(bin.probability / bin.count - bin.positives / bin.count)), 0);
}

/** A `pass_at` and what it does on the labelled cases. */
export interface PassAtSuggestion {
  passAt: number;
  /** Share of violations it fails. */
  tpr: number;
  /** Share of non-violations it fails. */
  fpr: number;
}

/**
 * The highest `pass_at` (a rubric fails when its score is below it) whose false-positive rate on the labelled cases
 * is at most `targetFpr`: the most violations caught at that cost. Scores are verdict scores in [0, 1].
 * @returns undefined when there is no non-violation to measure the false-positive rate on.
 */
export function suggestPassAt(scores: readonly number[], labels: readonly boolean[], targetFpr: number): PassAtSuggestion | undefined {
  const negativeScores = scores.filter((_score, index) => !labels[index]).sort((a, b) => a - b);
  if (negativeScores.length === 0) return undefined;
  const allowed = Math.floor(targetFpr * negativeScores.length + 1e-9);
  // Failing strictly below the (allowed+1)-th lowest non-violation's score fails at most `allowed` of them.
  const passAt = allowed >= negativeScores.length ? 1 : negativeScores[allowed]!;
  const failed = (index: number) => scores[index]! < passAt;
  const positives = labels.filter(Boolean).length;
  const tpr = positives === 0 ? Number.NaN : labels.filter((label, index) => label && failed(index)).length / positives;
  const fpr = negativeScores.filter((score) => score < passAt).length / negativeScores.length;
  return { passAt, tpr, fpr };
}
