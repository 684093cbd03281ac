import { describe, expect, it } from 'vitest';
import { act, detectorFor, kinds, runSteps, times } from './helpers.js';

/** Issue 15: the context summarised over and over without progress (OpenHands stops at 10 condensations). */
describe('condensation', () => {
  it('fires at the 10th condensation in a row without a tool making progress, not the 9th', () => {
    const read = act('read_file', { path: 'a.ts' }, 'same content'); // the first read is progress, the next are not
    const steps = [read, ...Array.from({ length: 10 }, () => [{ condensed: true }, read]).flat()];
    const found = kinds(runSteps(detectorFor({ repeatedAction: false, toolCycle: false }), steps));
    expect(found.filter((kind) => kind === 'condensation')).toHaveLength(1);
    expect(found.indexOf('condensation')).toBe(19); // the 10th condensation
  });

  it('starts counting again when a tool call makes progress (a result not seen before)', () => {
    const steps = Array.from({ length: 12 }, (_, i) => [{ condensed: true }, act('read_file', { path: `f${i}.ts` }, `content ${i}`)]).flat();
    expect(kinds(runSteps(detectorFor(), steps)).every((kind) => kind === '-')).toBe(true);
  });

  it('takes its threshold as an option and can be turned off', () => {
    expect(kinds(runSteps(detectorFor({ condensation: 2 }), times(2, { condensed: true })))).toEqual(['-', 'condensation']);
    expect(kinds(runSteps(detectorFor({ condensation: false }), times(12, { condensed: true }))).every((kind) => kind === '-')).toBe(true);
  });
});
