import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  closeMonitor,
  compileConstraint,
  evaluateConstraint,
  ignoreTargetsAfter,
  initialMonitorState,
  monitorKey,
  previewStep,
  stepMonitor,
  wouldViolate,
  type CompiledConstraint,
  type MonitorState,
  type TemporalConstraint,
} from '../../src/temporal/index.js';
import { constraintArbitrary, traceArbitrary } from './arbitraries.js';

function run(compiled: CompiledConstraint, trace: readonly string[]): MonitorState {
  return trace.reduce((state, entered) => stepMonitor(compiled, state, entered), initialMonitorState(compiled));
}

const PROPERTY_RUNS = 2000;

describe('incremental monitors', () => {
  it('agree with evaluateConstraint at every prefix, open and closed', () => {
    fc.assert(
      fc.property(constraintArbitrary, traceArbitrary, (constraint, trace) => {
        const compiled = compileConstraint(constraint);
        let state = initialMonitorState(compiled);
        for (let length = 0; length <= trace.length; length++) {
          if (length > 0) state = stepMonitor(compiled, state, trace[length - 1]!);
          const prefix = trace.slice(0, length);
          expect(state.verdict).toBe(evaluateConstraint(constraint, prefix));
          expect(closeMonitor(compiled, state).verdict).toBe(evaluateConstraint(constraint, prefix, { closed: true }));
        }
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('are monotone: once decided unchanged, and closing never leaves pending', () => {
    fc.assert(
      fc.property(constraintArbitrary, traceArbitrary, (constraint, trace) => {
        const compiled = compileConstraint(constraint);
        let state = initialMonitorState(compiled);
        for (const entered of trace) {
          const next = stepMonitor(compiled, state, entered);
          if (state.verdict !== 'pending') expect(next).toBe(state);
          const closed = closeMonitor(compiled, next);
          expect(closed.verdict).not.toBe('pending');
          if (next.verdict !== 'pending') expect(closed.verdict).toBe(next.verdict);
          expect(stepMonitor(compiled, closed, entered)).toBe(closed);
          state = next;
        }
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('record the position and state of a violation, as the oracle finds it', () => {
    fc.assert(
      fc.property(constraintArbitrary, traceArbitrary, (constraint, trace) => {
        const compiled = compileConstraint(constraint);
        const state = run(compiled, trace);
        if (state.verdict !== 'violated') {
          expect(state.violation).toBeUndefined();
          return;
        }
        // The first prefix the oracle calls violated ends at the recorded position.
        const first = trace.findIndex((_, index) => evaluateConstraint(constraint, trace.slice(0, index + 1)) === 'violated');
        expect(state.violation).toEqual({ step: first + 1, state: trace[first], atClose: false });
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('keep a small plain-JSON state whatever the history', () => {
    fc.assert(
      fc.property(constraintArbitrary, fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 200, maxLength: 400 }), (constraint, trace) => {
        const compiled = compileConstraint(constraint);
        for (const state of [run(compiled, trace), closeMonitor(compiled, run(compiled, trace))]) {
          expect(JSON.parse(JSON.stringify(state))).toEqual(state);
          expect(JSON.stringify(state).length).toBeLessThan(200);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('continue identically from a persisted state', () => {
    fc.assert(
      fc.property(constraintArbitrary, traceArbitrary, traceArbitrary, (constraint, before, after) => {
        const compiled = compileConstraint(constraint);
        const restored = JSON.parse(JSON.stringify(run(compiled, before))) as MonitorState;
        const resumed = after.reduce((state, entered) => stepMonitor(compiled, state, entered), restored);
        expect(resumed).toEqual(run(compiled, [...before, ...after]));
      }),
      { numRuns: 500 },
    );
  });
});

describe('stepMonitor', () => {
  const precedence = compileConstraint({ name: 'verify-first', type: 'precedence', trigger: 'process_refund', target: 'verify_identity' });

  it('records where a violation happened', () => {
    const state = run(precedence, ['greeting', 'identify_issue', 'lookup', 'process_refund']);
    expect(state).toEqual({ verdict: 'violated', steps: 4, closed: false, violation: { step: 4, state: 'process_refund', atClose: false } });
  });

  it('returns the same object once decided', () => {
    const state = run(precedence, ['verify_identity']);
    expect(state.verdict).toBe('satisfied');
    expect(stepMonitor(precedence, state, 'process_refund')).toBe(state);
  });

  it('keeps the unanswered trigger of a response and reports the violation at close', () => {
    const response = compileConstraint({ name: 'answer', type: 'response', trigger: 'question', target: 'answer' });
    const state = run(response, ['greeting', 'question', 'small_talk', 'question']);
    expect(state).toEqual({ verdict: 'pending', steps: 4, closed: false, open: { step: 2, state: 'question' } });
    expect(closeMonitor(response, state)).toEqual({ ...state, verdict: 'violated', closed: true, violation: { step: 4, state: null, atClose: true } });
  });

  it('records the start of an until', () => {
    const until = compileConstraint({ name: 'hold', type: 'until', trigger: 'hold', target: 'done' });
    expect(run(until, ['a', 'hold', 'hold', 'b'])).toMatchObject({ verdict: 'violated', open: { step: 2, state: 'hold' }, violation: { step: 4, state: 'b' } });
  });

  it('closes an empty trace', () => {
    const verdicts = (constraint: TemporalConstraint) => closeMonitor(compileConstraint(constraint), initialMonitorState(compileConstraint(constraint))).verdict;
    expect(verdicts({ name: 'e', type: 'eventually', target: 'a' })).toBe('violated');
    expect(verdicts({ name: 'n', type: 'next', target: 'a' })).toBe('violated');
    expect(verdicts({ name: 'r', type: 'response', trigger: 'a', target: 'b' })).toBe('satisfied');
  });

  it('closing is idempotent', () => {
    const closed = closeMonitor(precedence, run(precedence, ['greeting']));
    expect(closed.verdict).toBe('satisfied');
    expect(closeMonitor(precedence, closed)).toBe(closed);
  });

  it('compiles the selectors once and keeps the constraint', () => {
    const constraint: TemporalConstraint = { name: 'n', type: 'next', trigger: ['a', '!b'], target: '*' };
    const compiled = compileConstraint(constraint);
    expect(compiled.constraint).toBe(constraint);
    expect(compiled.trigger?.matches('c')).toBe(true);
    expect(compiled.condition).toBeUndefined();
  });

  it('rejects a missing parameter at compile time', () => {
    expect(() => compileConstraint({ name: 'stay', type: 'always' })).toThrow(
      "Invalid option `condition`: received undefined. Constraint 'stay' of type 'always' requires `condition`; add `condition` (the states every step must be in): a state name, `!state`, `*` or a list of these.",
    );
    expect(() => compileConstraint({ name: 'x', type: 'never', target: [] })).toThrow('Invalid option `target`: received []');
  });
});

describe('pre-emptive checks', () => {
  const never = compileConstraint({ name: 'no-leak', type: 'never', target: 'share_internal_info' });

  it('previews without committing', () => {
    const state = run(never, ['greeting']);
    const preview = previewStep(never, state, 'share_internal_info');
    expect(preview.verdict).toBe('violated');
    expect(state.verdict).toBe('pending');
    expect(wouldViolate(never, state, 'share_internal_info')).toBe(true);
    expect(wouldViolate(never, state, 'resolution')).toBe(false);
  });

  it('does not report an old violation as a new one', () => {
    expect(wouldViolate(never, run(never, ['share_internal_info']), 'share_internal_info')).toBe(false);
  });
});

describe('ignoreTargetsAfter (issue 24: a target the caller had not seen)', () => {
  const precedence = compileConstraint({ name: 'verify-first', type: 'precedence', trigger: 'refund', target: 'verify' });
  const until = compileConstraint({ name: 'confirm-first', type: 'until', trigger: '!refund', target: 'confirm' });

  it('reopens a precedence its target satisfied after the seen position, at the trace length given', () => {
    const state = run(precedence, ['greeting', 'verify']);
    expect(ignoreTargetsAfter(precedence, state, 1, 3)).toEqual({ verdict: 'pending', steps: 3, closed: false });
    expect(wouldViolate(precedence, ignoreTargetsAfter(precedence, state, 1, 3), 'refund')).toBe(true);
    expect(ignoreTargetsAfter(precedence, state, 2, 3)).toBe(state); // seen: it counts
  });

  it('reopens an until with its obligation still open, so only A or B may follow', () => {
    const state = run(until, ['greeting', 'lookup', 'confirm']);
    const ignored = ignoreTargetsAfter(until, state, 2, 3);
    expect(ignored).toEqual({ verdict: 'pending', steps: 3, closed: false, open: { step: 1, state: 'greeting' } });
    expect(wouldViolate(until, ignored, 'refund')).toBe(true);
    expect(wouldViolate(until, ignored, 'lookup')).toBe(false);
  });

  it('leaves every other monitor as it is: other types, pending, violated and closed ones', () => {
    const next = compileConstraint({ name: 'n', type: 'next', trigger: 'confirm', target: 'refund' });
    const eventually = compileConstraint({ name: 'e', type: 'eventually', target: 'verify' });
    for (const [compiled, trace] of [[next, ['confirm', 'refund']], [eventually, ['greeting', 'verify']], [precedence, ['greeting']], [precedence, ['refund', 'verify']]] as const) {
      const state = run(compiled, trace);
      expect(ignoreTargetsAfter(compiled, state, 0, trace.length)).toBe(state);
    }
    const closed = closeMonitor(precedence, run(precedence, ['verify']));
    expect(ignoreTargetsAfter(precedence, closed, 0, 1)).toBe(closed);
  });
});

describe('monitorKey', () => {
  it('ignores positions and names, keeps the automaton state', () => {
    const response = compileConstraint({ name: 'r', type: 'response', trigger: ['q', 'p'], target: 'a' });
    expect(monitorKey(run(response, ['x', 'q']))).toBe(monitorKey(run(response, ['p'])));
    expect(monitorKey(run(response, ['q', 'a']))).not.toBe(monitorKey(run(response, ['q'])));
  });
});
