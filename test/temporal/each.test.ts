/**
 * `each: true` on `precedence` and `response`: every trigger needs its own target. Examples of the oracle and the
 * incremental monitor; the property tests in monitor.test.ts compare the two on random traces (the arbitraries
 * generate the new form too).
 */
import { describe, expect, it } from 'vitest';
import { closeMonitor, compileConstraint, describeViolation, evaluateConstraint, ignoreTargetsAfter, initialMonitorState, stepMonitor, wouldViolate, type TemporalConstraint } from '../../src/temporal/index.js';

const confirmEach: TemporalConstraint = { name: 'confirm_each', type: 'precedence', trigger: 'write', target: 'confirm', each: true };
const answerEach: TemporalConstraint = { name: 'answer_each', type: 'response', trigger: 'ask', target: 'answer', each: true };
const run = (constraint: TemporalConstraint, trace: string[], closed = false) => {
  const compiled = compileConstraint(constraint);
  let state = initialMonitorState(compiled);
  for (const entered of trace) state = stepMonitor(compiled, state, entered);
  return closed ? closeMonitor(compiled, state) : state;
};

describe('precedence with each', () => {
  it('needs a fresh target since the previous trigger, for every trigger', () => {
    expect(evaluateConstraint(confirmEach, ['start', 'confirm', 'write', 'write'])).toBe('violated');
    expect(evaluateConstraint({ ...confirmEach, each: false }, ['start', 'confirm', 'write', 'write'])).toBe('satisfied');
    expect(evaluateConstraint(confirmEach, ['start', 'confirm', 'write', 'look', 'confirm', 'write'])).toBe('pending');
    expect(evaluateConstraint(confirmEach, ['start', 'confirm', 'write', 'look', 'confirm', 'write'], { closed: true })).toBe('satisfied');
    const violated = run(confirmEach, ['start', 'confirm', 'write', 'write']);
    expect(violated.violation).toEqual({ step: 4, state: 'write', atClose: false });
    expect(describeViolation(compileConstraint(confirmEach), violated)).toBe("Entered 'write' at trace position 4 with no 'confirm' since the previous 'write' (or the start). Each 'write' needs its own 'confirm' before it.");
  });

  it('a fresh target is never owed: closing an armed monitor satisfies it', () => {
    expect(run(confirmEach, ['start', 'confirm'], true).verdict).toBe('satisfied');
  });

  it('a target entered after the move was decided is not fresh for it', () => {
    const compiled = compileConstraint(confirmEach);
    const state = run(confirmEach, ['start', 'confirm']);
    expect(wouldViolate(compiled, state, 'write')).toBe(false);
    expect(wouldViolate(compiled, ignoreTargetsAfter(compiled, state, 1, 2), 'write')).toBe(true);
    expect(ignoreTargetsAfter(compiled, state, 2, 2)).toBe(state);
  });
});

describe('response with each', () => {
  it('needs a target after each trigger, before the next trigger', () => {
    expect(evaluateConstraint(answerEach, ['ask', 'ask', 'answer'], { closed: true })).toBe('violated');
    expect(evaluateConstraint({ ...answerEach, each: false }, ['ask', 'ask', 'answer'], { closed: true })).toBe('satisfied');
    expect(evaluateConstraint(answerEach, ['ask', 'answer', 'ask', 'answer'], { closed: true })).toBe('satisfied');
    const violated = run(answerEach, ['ask', 'ask']);
    expect(violated.verdict).toBe('violated'); // known at once, not only at the end
    expect(describeViolation(compileConstraint(answerEach), violated)).toBe("Entered 'ask' at trace position 2 while 'ask' at trace position 1 was still unanswered. Each 'ask' needs its own 'answer' after it.");
    expect(run(answerEach, ['ask'], true).violation).toEqual({ step: 1, state: null, atClose: true });
  });
});
