import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { auroc, expectedCalibrationError, suggestPassAt, tprAtFpr } from '../../src/index.js';

const T = true;
const F = false;

/** AUROC by its definition: every (violation, non-violation) pair, ties counting half. */
function pairwiseAuroc(risks: number[], labels: boolean[]): number {
  let wins = 0;
  let pairs = 0;
  risks.forEach((positive, i) => {
    if (!labels[i]) return;
    risks.forEach((negative, j) => {
      if (labels[j]) return;
      pairs++;
      wins += positive > negative ? 1 : positive === negative ? 0.5 : 0;
    });
  });
  return wins / pairs;
}

describe('calibration metrics', () => {
  it('AUROC on hand-computed sets', () => {
    expect(auroc([0.9, 0.8, 0.7, 0.6], [T, F, T, F])).toBe(0.75); // pairs won: 3 of 4
    expect(auroc([0.1, 0.4, 0.35, 0.8], [F, F, T, T])).toBe(0.75);
    expect(auroc([0.5, 0.5], [T, F])).toBe(0.5);
    expect(auroc([0.9, 0.1], [T, F])).toBe(1);
    expect(auroc([0.1, 0.9], [T, F])).toBe(0);
    expect(auroc([0.3, 0.3, 0.7], [T, F, T])).toBe(0.75); // (0.3 vs 0.3) half, (0.7 vs 0.3) one
    expect(auroc([0.5], [T])).toBeNaN();
  });

  it('AUROC equals the pairwise count on any set (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 10 }).map((n) => n / 10), fc.boolean()), { minLength: 2, maxLength: 60 }).filter((cases) => cases.some(([, l]) => l) && cases.some(([, l]) => !l)),
        (cases) => {
          const risks = cases.map(([risk]) => risk);
          const labels = cases.map(([, label]) => label);
          expect(auroc(risks, labels)).toBeCloseTo(pairwiseAuroc(risks, labels), 12);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('true-positive rate at a false-positive rate', () => {
    const risks = [0.9, 0.8, 0.7, 0.6, 0.5];
    const labels = [T, T, F, T, F];
    expect(tprAtFpr(risks, labels, 0)).toBeCloseTo(2 / 3);
    expect(tprAtFpr(risks, labels, 0.01)).toBeCloseTo(2 / 3);
    expect(tprAtFpr(risks, labels, 0.5)).toBe(1);
    // Tied risks are one threshold: both or neither.
    expect(tprAtFpr([0.9, 0.9], [T, F], 0.01)).toBe(0);
  });

  it('expected calibration error', () => {
    expect(expectedCalibrationError([0.05, 0.95], [F, T])).toBeCloseTo(0.05);
    expect(expectedCalibrationError([0.5, 0.5], [F, T])).toBe(0);
    expect(expectedCalibrationError([1, 1], [F, F])).toBe(1);
  });

  it('suggests the highest pass_at within the target false-positive rate', () => {
    const scores = [0.2, 0.5, 0.9, 0.7, 1, 1];
    const labels = [T, T, F, F, F, F];
    expect(suggestPassAt(scores, labels, 0)).toEqual({ passAt: 0.7, tpr: 1, fpr: 0 });
    expect(suggestPassAt(scores, labels, 0.25)).toEqual({ passAt: 0.9, tpr: 1, fpr: 0.25 });
    expect(suggestPassAt(scores, labels, 1)).toEqual({ passAt: 1, tpr: 1, fpr: 0.5 });
    expect(suggestPassAt([0.1], [T], 0.01)).toBeUndefined();
  });
});
