import { describe, expect, it } from 'vitest';
import { PanoptesError } from '../../src/errors/index.js';
import { DEFAULT_LOOP_HINT, LoopDetectedError } from '../../src/loops/index.js';
import { detectorFor, kinds, runSteps, say, times } from './helpers.js';

describe('escalation', () => {
  it('goes hint, stronger hint, stop for the same loop, each queued for the next model call', () => {
    const detector = detectorFor();
    const reports = runSteps(detector, times(3, say('Let me think.')));
    expect(reports[2]).toMatchObject({ action: 'hint', detection: 1 });
    expect(reports[2]!.hint).toBe(
      'You seem to be repeating yourself: you wrote the same message 3 times in a row without doing anything in between. Take a different approach, or consider that your previous attempts may already have answered the question.',
    );
    expect(detector.takePendingHint('s1')).toEqual({ action: 'hint', text: reports[2]!.hint, kind: 'monologue', loopId: reports[2]!.loopId, step: 3 });
    expect(detector.takePendingHint('s1')).toBeUndefined();

    const stronger = detector.observeStructural('s1', say('Let me think.'))!;
    expect(stronger).toMatchObject({ action: 'stronger-hint', detection: 2 });
    expect(stronger.hint).toMatch(/^You are still repeating yourself after being told so: you wrote the same message 4 times/);
    const stop = detector.observeStructural('s1', say('Let me think.'))!;
    expect(stop).toMatchObject({ action: 'stop', detection: 3 });
    expect(stop.hint).toMatch(/^The run was stopped because the agent kept repeating itself/);
    // Both were queued; the stronger one is what the next call sees.
    expect(detector.takePendingHint('s1')).toMatchObject({ action: 'stop' });
  });

  it('counts each loop on its own', () => {
    const detector = detectorFor();
    const reports = runSteps(detector, [...times(3, say('First.')), ...times(3, say('Second.'))]);
    expect(kinds(reports)).toEqual(['-', '-', 'monologue', '-', '-', 'monologue']);
    expect([reports[2]!.detection, reports[5]!.detection]).toEqual([1, 1]);
  });

  it('remembers a loop that went quiet and came back', () => {
    const detector = detectorFor();
    const reports = runSteps(detector, [...times(3, say('Again.')), say('Something else.'), ...times(3, say('Again.'))]);
    expect(reports.at(-1)).toMatchObject({ kind: 'monologue', detection: 2, action: 'stronger-hint' });
  });

  it('takes its texts and steps as options; {detail} is filled in', () => {
    const detector = detectorFor({ hint: 'Loop: {detail}.', strongerHint: 'Stop that.', escalation: { strongerHintAt: 3, stopAt: Infinity } });
    const reports = runSteps(detector, times(8, say('Hmm.')));
    expect(reports.slice(2).map((report) => report!.action)).toEqual(['hint', 'hint', 'stronger-hint', 'stronger-hint', 'stronger-hint', 'stronger-hint']);
    expect(reports[2]!.hint).toBe('Loop: you wrote the same message 3 times in a row without doing anything in between.');
    expect(reports[4]!.hint).toBe('Stop that.');
    expect(DEFAULT_LOOP_HINT).toContain('{detail}');
  });

  it('forgets everything about a session on resetSession (a new run)', () => {
    const detector = detectorFor();
    runSteps(detector, times(5, say('Done?')));
    detector.resetSession('s1');
    expect(detector.takePendingHint('s1')).toBeUndefined();
    expect(kinds(runSteps(detector, times(3, say('Done?'))))).toEqual(['-', '-', 'monologue']);
  });

  it('turns a stop into a LoopDetectedError for hosts that throw', () => {
    const detector = detectorFor();
    const stop = runSteps(detector, times(5, say('Again and again.'))).at(-1)!;
    const error = new LoopDetectedError({ report: stop, sessionId: 's1' });
    expect(LoopDetectedError.isInstance(error)).toBe(true);
    expect(PanoptesError.isInstance(error)).toBe(true);
    expect(error.code).toBe('LOOP_DETECTED');
    expect(error.modelMessage).toBe(stop.hint);
    expect(error.message).toBe(`Run stopped in session 's1': ${stop.message}`);
    expect(stop.message).toBe(
      "Loop detected in session 's1' at step 5 (monologue, detection 3): you wrote the same message 5 times in a row without doing anything in between. Suggested action: stop.",
    );
  });
});
