import { describe, expect, it } from 'vitest';
import { act, detectorFor, kinds, runSteps, times } from './helpers.js';

/** Issue 15: arguments that vary while the result never changes (hermes-agent#60084). */
describe('unchanged-result', () => {
  it('fires at the 4th call to one tool with new arguments each time and the same result each time', () => {
    const reports = runSteps(detectorFor(), times(4, (i) => act('search', { q: `flights to Paris, attempt ${i}` }, 'no results')));
    expect(kinds(reports)).toEqual(['-', '-', '-', 'unchanged-result']);
    expect(reports[3]!.detail).toBe('you called `search` 4 times in a row with different arguments and got the same result every time');
    expect(reports[3]!.evidence.steps).toEqual([1, 2, 3, 4]);
  });

  it('is quiet when the results change, when another tool comes between, or when a call repeats the one before', () => {
    expect(kinds(runSteps(detectorFor(), times(4, (i) => act('search', { q: i }, `result ${i}`))))).toEqual(['-', '-', '-', '-']);
    const interleaved = [act('search', { q: 1 }, 'none'), act('search', { q: 2 }, 'none'), act('open', { id: 1 }, 'page'), act('search', { q: 3 }, 'none')];
    expect(kinds(runSteps(detectorFor(), interleaved))).toEqual(['-', '-', '-', '-']);
    const retried = [act('search', { q: 1 }, 'none'), act('search', { q: 1 }, 'none'), act('search', { q: 2 }, 'none'), act('search', { q: 3 }, 'none')];
    expect(kinds(runSteps(detectorFor(), retried))).toEqual(['-', '-', '-', '-']);
  });

  it('takes its threshold as an option and can be turned off', () => {
    const steps = times(3, (i) => act('search', { q: i }, 'none'));
    expect(kinds(runSteps(detectorFor({ unchangedResult: 3 }), steps)).at(-1)).toBe('unchanged-result');
    expect(kinds(runSteps(detectorFor({ unchangedResult: false }), times(8, (i) => act('search', { q: i }, 'none')))).every((kind) => kind === '-')).toBe(true);
  });
});
