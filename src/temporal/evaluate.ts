import { assertConstraintParameters } from './parameters.js';
import { selectorIncludes } from './selector.js';
import type { StateSelector, TemporalConstraint, Verdict } from './types.js';

/** Options of `evaluateConstraint`. */
export interface EvaluateOptions {
  /** Whether the trace has ended (the session ended, or the audited transcript is complete). @default false */
  closed?: boolean;
}

/**
 * The verdict of a constraint on a whole trace, exactly as the table of DESIGN.md section 4 defines it. It re-scans
 * the trace (O(n) per call) and is written for clarity: the incremental monitors are tested against it.
 *
 * The trace is taken as given: consecutive duplicates are positions like any other (callers collapse them first).
 * Where the table is silent: a closed empty trace makes `next` without trigger `violated` (there is no second state,
 * as with a closed trace of length 1), and satisfies every type whose obligations need a trigger.
 * @param constraint The constraint; its type's required parameters must be present.
 * @param trace The states entered, starting with the initial state.
 * @throws {InvalidOptionError} when a parameter the type requires is missing.
 * @example
 * const constraint = { name: 'verify-first', type: 'precedence', trigger: 'process_refund', target: 'verify_identity' } as const;
 * evaluateConstraint(constraint, ['greeting', 'process_refund']); // 'violated'
 * evaluateConstraint(constraint, ['greeting'], { closed: true }); // 'satisfied'
 */
export function evaluateConstraint(constraint: TemporalConstraint, trace: readonly string[], { closed = false }: EvaluateOptions = {}): Verdict {
  assertConstraintParameters(constraint);
  const inTrigger = (state: string | undefined) => state !== undefined && constraint.trigger !== undefined && selectorIncludes(constraint.trigger, state);
  const inTarget = (state: string | undefined) => state !== undefined && selectorIncludes(constraint.target as StateSelector, state);
  const open: Verdict = closed ? 'satisfied' : 'pending';

  switch (constraint.type) {
    case 'eventually':
      if (trace.some(inTarget)) return 'satisfied';
      return closed ? 'violated' : 'pending';

    case 'never':
      return trace.some(inTarget) ? 'violated' : open;

    case 'always':
      return trace.every((state) => selectorIncludes(constraint.condition as StateSelector, state)) ? open : 'violated';

    case 'precedence': {
      // A trigger needs a target strictly before it: a state that is both, with no earlier target, violates.
      const firstTrigger = trace.findIndex(inTrigger);
      if (firstTrigger >= 0 && !trace.slice(0, firstTrigger).some(inTarget)) return 'violated';
      const firstTarget = trace.findIndex(inTarget);
      if (firstTarget >= 0 && (firstTrigger < 0 || firstTarget < firstTrigger)) return 'satisfied';
      return open;
    }

    case 'response': {
      if (!closed) return 'pending';
      // Every trigger needs a target strictly after it.
      const unanswered = trace.some((state, i) => inTrigger(state) && !trace.slice(i + 1).some(inTarget));
      return unanswered ? 'violated' : 'satisfied';
    }

    case 'until': {
      const inA = inTrigger;
      const k = trace.findIndex(inA);
      if (k < 0) return open;
      for (let i = k; i < trace.length; i++) {
        if (inTarget(trace[i])) return 'satisfied';
        if (!inA(trace[i])) return 'violated';
      }
      return closed ? 'violated' : 'pending';
    }

    case 'next':
      return constraint.trigger === undefined ? evaluateSecondState(trace, inTarget, closed) : evaluateNext(trace, inTrigger, inTarget, closed);
  }
}

function evaluateNext(trace: readonly string[], inTrigger: (s?: string) => boolean, inTarget: (s?: string) => boolean, closed: boolean): Verdict {
  for (let i = 0; i + 1 < trace.length; i++) {
    if (inTrigger(trace[i]) && !inTarget(trace[i + 1])) return 'violated';
  }
  if (!closed) return 'pending';
  return inTrigger(trace[trace.length - 1]) ? 'violated' : 'satisfied';
}

/** `next` without a trigger constrains the second state of the trace. */
function evaluateSecondState(trace: readonly string[], inTarget: (s?: string) => boolean, closed: boolean): Verdict {
  if (trace.length >= 2) return inTarget(trace[1]) ? 'satisfied' : 'violated';
  return closed ? 'violated' : 'pending';
}
