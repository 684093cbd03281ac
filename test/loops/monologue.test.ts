import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { act, detectorFor, kinds, runSteps, say, times } from './helpers.js';

describe('monologue', () => {
  it('fires at the 3rd identical text-only response, not at the 2nd', () => {
    const reports = runSteps(detectorFor(), times(3, say('Let me check that for you.')));
    expect(kinds(reports)).toEqual(['-', '-', 'monologue']);
    expect(reports[2]).toMatchObject({ evidence: { steps: [1, 2, 3], repetitions: 3, text: 'Let me check that for you.' } });
  });

  it('fires at any threshold chosen, and not one step before', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 12 }), (threshold) => {
        const reports = runSteps(detectorFor({ monologue: threshold }), times(threshold, say('Working on it.')));
        return reports.slice(0, -1).every((report) => report === null) && reports.at(-1)?.kind === 'monologue';
      }),
    );
  });

  it('compares texts with whitespace and volatile values aside', () => {
    const steps = [say('Checking now (2026-01-01T10:00:00Z).'), say('  Checking   now (2026-01-01T10:05:00Z).\n'), say('Checking now (2026-01-01T10:09:30Z).')];
    expect(kinds(runSteps(detectorFor(), steps)).at(-1)).toBe('monologue');
  });

  it('stays quiet when something happens in between: a tool call, or a poll of an exempt tool', () => {
    const between = [say('Still waiting.'), say('Still waiting.'), act('check', { job: 1 }, 'pending'), say('Still waiting.')];
    expect(kinds(runSteps(detectorFor(), between))).toEqual(['-', '-', '-', '-']);
    const polled = [say('Still waiting.'), say('Still waiting.'), act('poll', {}, 'pending'), say('Still waiting.')];
    expect(kinds(runSteps(detectorFor({ exemptTools: ['poll'] }), polled))).toEqual(['-', '-', '-', '-']);
  });

  it('stays quiet when the texts differ', () => {
    expect(kinds(runSteps(detectorFor(), [say('One.'), say('Two.'), say('One.'), say('Two.')]).slice(0, 3))).toEqual(['-', '-', '-']);
  });
});
