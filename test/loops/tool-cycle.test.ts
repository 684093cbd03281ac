import { describe, expect, it } from 'vitest';
import { act, call, detectorFor, kinds, runSteps, times } from './helpers.js';

const cycleStep = (names: string[]) => (i: number) => act(names[i % names.length]!, { target: 'x' }, `result ${i}`);

describe('tool-cycle', () => {
  it('fires when a cycle of 3 calls has repeated 5 times (the 15th call), not at the 14th', () => {
    const reports = runSteps(detectorFor(), times(15, cycleStep(['search', 'open', 'summarise'])));
    expect(kinds(reports).slice(0, 14).every((kind) => kind === '-')).toBe(true);
    expect(reports[14]).toMatchObject({
      kind: 'tool-cycle',
      evidence: { repetitions: 5, calls: [{ name: 'search' }, { name: 'open' }, { name: 'summarise' }] },
    });
    expect(reports[14]!.evidence.steps).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
  });

  it('catches the same call repeated 5 times even when its results differ', () => {
    const reports = runSteps(detectorFor(), times(5, (i) => act('refresh', { page: 'home' }, `version ${i}`)));
    expect(kinds(reports)).toEqual(['-', '-', '-', '-', 'tool-cycle']);
    expect(reports[4]!.hint).toContain('you made the same call to `refresh` 5 times in a row');
  });

  it('finds cycles up to maxLength and no longer', () => {
    const six = ['a', 'b', 'c', 'd', 'e', 'f'];
    expect(kinds(runSteps(detectorFor(), times(30, cycleStep(six)))).every((kind) => kind === '-')).toBe(true);
    expect(kinds(runSteps(detectorFor({ toolCycle: { maxLength: 6 } }), times(30, cycleStep(six)))).at(-1)).toBe('tool-cycle');
  });

  it('names the same cycle the same way whichever call completes it', () => {
    const detector = detectorFor({ toolCycle: { maxLength: 2, repetitions: 3 }, alternation: false });
    const reports = runSteps(detector, times(8, cycleStep(['a', 'b'])));
    expect(kinds(reports)).toEqual(['-', '-', '-', '-', '-', 'tool-cycle', 'tool-cycle', 'tool-cycle']);
    expect(new Set(reports.slice(5).map((report) => report!.loopId)).size).toBe(1);
  });

  it('sees calls made in parallel within one step', () => {
    const step = { toolCalls: [call('get', { id: 1 }), call('get', { id: 2 })] };
    const reports = runSteps(detectorFor({ alternation: false }), times(5, step));
    expect(kinds(reports)).toEqual(['-', '-', '-', '-', 'tool-cycle']);
  });

  it('stays quiet for a sweep over different arguments', () => {
    const reports = runSteps(detectorFor(), times(40, (i) => act('read_page', { page: i }, `text of page ${i}`)));
    expect(reports.every((report) => report === null)).toBe(true);
  });
});
