import { describe, expect, it } from 'vitest';
import { act, detectorFor, kinds, runSteps, say, times } from './helpers.js';

describe('alternation', () => {
  it('fires when 6 steps alternate A, B, A, B, A, B, not at 5', () => {
    const steps = times(6, (i) => (i % 2 === 0 ? act('open', { file: 'a.ts' }, `content ${i}`) : act('run_tests', {}, `failed ${i}`)));
    const reports = runSteps(detectorFor(), steps);
    expect(kinds(reports)).toEqual(['-', '-', '-', '-', '-', 'alternation']);
    expect(reports[5]).toMatchObject({ evidence: { steps: [1, 2, 3, 4, 5, 6], repetitions: 6 } });
  });

  it('is one loop whichever step comes first, and escalates as the flip-flop goes on', () => {
    const steps = times(8, (i) => (i % 2 === 0 ? say('The answer is yes.') : say('Actually, the answer is no.')));
    const reports = runSteps(detectorFor(), steps);
    expect(kinds(reports)).toEqual(['-', '-', '-', '-', '-', 'alternation', 'alternation', 'alternation']);
    expect(reports.slice(5).map((report) => report!.action)).toEqual(['hint', 'stronger-hint', 'stop']);
    expect(new Set(reports.slice(5).map((report) => report!.loopId)).size).toBe(1);
  });

  it('stays quiet for A, B, A, B, A, C', () => {
    const steps = [say('A'), say('B'), say('A'), say('B'), say('A'), say('C')];
    expect(kinds(runSteps(detectorFor(), steps))).toEqual(['-', '-', '-', '-', '-', '-']);
  });

  it('takes its span as an option', () => {
    const steps = times(4, (i) => say(i % 2 ? 'B' : 'A'));
    expect(kinds(runSteps(detectorFor({ alternation: 4 }), steps))).toEqual(['-', '-', '-', 'alternation']);
  });
});
