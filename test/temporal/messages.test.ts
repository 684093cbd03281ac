import { describe, expect, it } from 'vitest';
import {
  closeMonitor,
  compileConstraint,
  describeDoomed,
  describeViolation,
  initialMonitorState,
  stepMonitor,
  type MonitorState,
  type TemporalConstraint,
} from '../../src/temporal/index.js';

function violation(constraint: TemporalConstraint, trace: string[], { closed = false } = {}): string {
  const compiled = compileConstraint(constraint);
  let state: MonitorState = trace.reduce((current, entered) => stepMonitor(compiled, current, entered), initialMonitorState(compiled));
  if (closed) state = closeMonitor(compiled, state);
  return describeViolation(compiled, state);
}

describe('describeViolation', () => {
  it('eventually', () => {
    expect(violation({ name: 'e', type: 'eventually', target: 'resolution' }, ['greeting', 'triage'], { closed: true })).toBe(
      "The session ended after trace position 2 without reaching 'resolution'. 'resolution' must be reached before the session ends.",
    );
    expect(violation({ name: 'e', type: 'eventually', target: ['a', 'b'] }, [], { closed: true })).toBe(
      "The session ended before entering any state without reaching any of 'a', 'b'. Any of 'a', 'b' must be reached before the session ends.",
    );
  });

  it('never', () => {
    expect(violation({ name: 'n', type: 'never', target: 'share_internal_info' }, ['greeting', 'share_internal_info'])).toBe(
      "Entered 'share_internal_info' at trace position 2. 'share_internal_info' must never be entered.",
    );
  });

  it('always', () => {
    expect(violation({ name: 'a', type: 'always', condition: ['polite', 'helpful'] }, ['polite', 'rude'])).toBe(
      "Entered 'rude' at trace position 2, which is not one of 'polite', 'helpful'. Every state must be one of 'polite', 'helpful'.",
    );
  });

  it('precedence', () => {
    expect(
      violation({ name: 'p', type: 'precedence', trigger: 'process_refund', target: 'verify_identity' }, ['greeting', 'identify_issue', 'lookup', 'process_refund']),
    ).toBe("Entered 'process_refund' at trace position 4 before any of 'verify_identity'. 'verify_identity' must come before 'process_refund'.");
    expect(violation({ name: 'p', type: 'precedence', trigger: 'refund', target: '!greeting' }, ['greeting', 'refund'])).toBe(
      "Entered 'refund' at trace position 2 before any state but 'greeting'. Any state but 'greeting' must come before 'refund'.",
    );
  });

  it('response', () => {
    expect(violation({ name: 'r', type: 'response', trigger: 'question', target: 'answer' }, ['greeting', 'question', 'chat'], { closed: true })).toBe(
      "Entered 'question' at trace position 2 and the session ended without 'answer' after it. 'answer' must follow 'question'.",
    );
  });

  it('until, on a step and at close', () => {
    const until: TemporalConstraint = { name: 'u', type: 'until', trigger: 'hold', target: 'done' };
    expect(violation(until, ['a', 'hold', 'b'])).toBe(
      "Entered 'b' at trace position 3, after 'hold' at trace position 2 and before reaching 'done'. Once 'hold' is entered, 'done' must be reached with only 'hold' in between.",
    );
    expect(violation(until, ['a', 'hold'], { closed: true })).toBe(
      "Entered 'hold' at trace position 2 and the session ended before reaching 'done'. Once 'hold' is entered, 'done' must be reached with only 'hold' in between.",
    );
  });

  it('next, with and without trigger', () => {
    const next: TemporalConstraint = { name: 'x', type: 'next', trigger: 'ask', target: 'confirm' };
    expect(violation(next, ['a', 'ask', 'b'])).toBe("Entered 'b' at trace position 3, right after 'ask'. 'confirm' must come directly after 'ask'.");
    expect(violation(next, ['a', 'ask'], { closed: true })).toBe("The session ended right after 'ask' at trace position 2. 'confirm' must come directly after 'ask'.");
    const second: TemporalConstraint = { name: 's', type: 'next', target: 'greeting' };
    expect(violation(second, ['start', 'other'])).toBe("Entered 'other' at trace position 2. The second state must be 'greeting'.");
    expect(violation(second, ['start'], { closed: true })).toBe("The session ended after trace position 1, before a second state. The second state must be 'greeting'.");
  });

  it('says so when the monitor is not violated', () => {
    expect(violation({ name: 'e', type: 'eventually', target: 'r' }, ['r'])).toBe("Constraint 'e' is satisfied.");
  });
});

describe('describeDoomed', () => {
  it('says what is owed and from where', () => {
    const eventually = compileConstraint({ name: 'e', type: 'eventually', target: 'resolution' });
    expect(describeDoomed(eventually, 'closed_account')).toBe("'resolution' must still be reached, and no path from 'closed_account' leads there.");
    const response = compileConstraint({ name: 'r', type: 'response', trigger: 'question', target: 'answer' });
    const state = ['question', 'dead_end'].reduce((current, entered) => stepMonitor(response, current, entered), initialMonitorState(response));
    expect(describeDoomed(response, 'dead_end', state)).toBe("'answer' must still follow 'question' (trace position 1), and no path from 'dead_end' leads there.");
    expect(describeDoomed(response, 'dead_end')).toBe("'answer' must still follow 'question', and no path from 'dead_end' leads there.");
    const until = compileConstraint({ name: 'u', type: 'until', trigger: ['hold', 'wait'], target: 'done' });
    expect(describeDoomed(until, 'hold')).toBe("'done' must still be reached with only one of 'hold', 'wait' on the way, and no path from 'hold' does that.");
    const next = compileConstraint({ name: 'n', type: 'next', trigger: 'ask', target: 'confirm' });
    expect(describeDoomed(next, 'ask')).toBe("'confirm' must come directly after 'ask', and no transition from 'ask' leads there.");
  });
});
