import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { act, detectorFor, kinds, runSteps, times } from './helpers.js';

describe('repeated-error', () => {
  it('fires at the 3rd identical call that fails, not at the 2nd', () => {
    const reports = runSteps(detectorFor(), times(3, (i) => act('book', { flight: 'AF12' }, `503 at 10:00:0${i}, request ${i}`, true)));
    expect(kinds(reports)).toEqual(['-', '-', 'repeated-error']);
    expect(reports[2]).toMatchObject({ kind: 'repeated-error', evidence: { steps: [1, 2, 3], repetitions: 3, calls: [{ name: 'book' }] } });
    expect(reports[2]!.hint).toContain('`book` failed 3 times in a row with the same arguments');
  });

  it('fires at any threshold chosen, and not one step before', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 12 }), (threshold) => {
        const detector = detectorFor({ repeatedError: threshold, toolCycle: false });
        const reports = runSteps(detector, times(threshold, act('book', { flight: 'AF12' }, 'boom', true)));
        return reports.slice(0, -1).every((report) => report === null) && reports.at(-1)?.kind === 'repeated-error';
      }),
    );
  });

  it('stays quiet for a retry with a changed argument, even if that one fails too', () => {
    const steps = [
      act('book', { flight: 'AF12', date: '2026-02-01' }, 'invalid date', true),
      act('book', { flight: 'AF12', date: '2026-02-01' }, 'invalid date', true),
      act('book', { flight: 'AF12', date: '2026-02-02' }, 'sold out', true),
      act('book', { flight: 'AF14', date: '2026-02-02' }, 'confirmed'),
    ];
    expect(kinds(runSteps(detectorFor(), steps))).toEqual(['-', '-', '-', '-']);
  });

  it('starts again after a success', () => {
    const steps = [act('ping', {}, 'down', true), act('ping', {}, 'down', true), act('ping', {}, 'up'), act('ping', {}, 'down', true), act('ping', {}, 'down', true)];
    expect(kinds(runSteps(detectorFor({ toolCycle: false }), steps))).toEqual(['-', '-', '-', '-', '-']);
  });
});
