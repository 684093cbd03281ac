import { assertConstraintParameters } from './parameters.js';
import { selectorIncludes } from './selector.js';
import type { StateSelector, TemporalConstraint, Verdict } from './types.js';

/** Options of `evaluateConstraint`. */
export interface EvaluateOptions {
  /** Whether the trace has ended (the session ended, or the audited transcript is complete). @default false */
  closed?: boolean;
}

/**
 * The verdict of a constraint on a whole trace, exactly as the semantics table of docs/workflows.md defines it. It re-scans
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
  const { trigger, target, condition } = constraint;
  const end: Verdict = closed ? 'satisfied' : 'pending';

  if (constraint.each && (constraint.type === 'precedence' || constraint.type === 'response')) return evaluateEach(constraint, trace, closed);
  switch (constraint.type) {
    case 'eventually':
      if (someIn(trace, target)) return 'satisfied';
      return closed ? 'violated' : 'pending';

    case 'never':
      return someIn(trace, target) ? 'violated' : end;

    case 'always':
      for (const state of trace) if (!selectorIncludes(condition!, state)) return 'violated';
      return end;

    case 'precedence': {
      // A trigger needs a target strictly before it: a state that is both, with no earlier target, violates.
      const firstTrigger = indexIn(trace, trigger);
      if (firstTrigger >= 0 && !someIn(trace, target, 0, firstTrigger)) return 'violated';
      const firstTarget = indexIn(trace, target);
      if (firstTarget >= 0 && (firstTrigger < 0 || firstTarget < firstTrigger)) return 'satisfied';
      return end;
    }

    case 'response':
      if (!closed) return 'pending';
      // Every trigger needs a target strictly after it.
      for (let i = 0; i < trace.length; i++) {
        if (isIn(trace[i], trigger) && !someIn(trace, target, i + 1)) return 'violated';
      }
      return 'satisfied';

    case 'until': {
      // trigger is A, target is B; k is the first position in A.
      const k = indexIn(trace, trigger);
      if (k < 0) return end;
      for (let i = k; i < trace.length; i++) {
        if (isIn(trace[i], target)) return 'satisfied';
        if (!isIn(trace[i], trigger)) return 'violated';
      }
      return closed ? 'violated' : 'pending';
    }

    case 'next':
      if (trigger === undefined) {
        // Without a trigger, `next` constrains the second state of the trace.
        if (trace.length >= 2) return isIn(trace[1], target) ? 'satisfied' : 'violated';
        return closed ? 'violated' : 'pending';
      }
      for (let i = 0; i + 1 < trace.length; i++) {
        if (isIn(trace[i], trigger) && !isIn(trace[i + 1], target)) return 'violated';
      }
      if (!closed) return 'pending';
      return isIn(trace[trace.length - 1], trigger) ? 'violated' : 'satisfied';
  }
}

/**
 * `each: true`: every trigger needs its own target. `precedence`: a target strictly between the previous trigger (or
 * the start) and the trigger; `response`: a target strictly after the trigger and before the next trigger (a state
 * that is both answers the open trigger and opens its own). Neither is satisfied before the trace closes.
 */
function evaluateEach(constraint: TemporalConstraint, trace: readonly string[], closed: boolean): Verdict {
  const { trigger, target } = constraint;
  let previous = -1;
  for (let i = 0; i < trace.length; i++) {
    if (!isIn(trace[i], trigger)) continue;
    if (constraint.type === 'precedence') {
      if (!someIn(trace, target, previous + 1, i)) return 'violated';
    } else {
      let j = i + 1;
      while (j < trace.length && !isIn(trace[j], target) && !isIn(trace[j], trigger)) j++;
      if (j === trace.length) return closed ? 'violated' : 'pending';
      if (!isIn(trace[j], target)) return 'violated';
    }
    previous = i;
  }
  return closed ? 'satisfied' : 'pending';
}

/** Whether `state` exists and is in `selector`; an absent selector names no state. */
function isIn(state: string | undefined, selector: StateSelector | undefined): boolean {
  return state !== undefined && selector !== undefined && selectorIncludes(selector, state);
}

/** The first position in `[from, trace.length)` whose state is in `selector`, or -1. */
function indexIn(trace: readonly string[], selector: StateSelector | undefined, from = 0): number {
  for (let i = from; i < trace.length; i++) if (isIn(trace[i], selector)) return i;
  return -1;
}

/** Whether some state at a position in `[from, to)` is in `selector`. */
function someIn(trace: readonly string[], selector: StateSelector | undefined, from = 0, to = trace.length): boolean {
  const index = indexIn(trace, selector, from);
  return index >= 0 && index < to;
}
