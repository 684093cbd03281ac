import { closeCustom, startCustom, stepCustom, type CustomConstraint } from './custom.js';
import { assertConstraintParameters } from './parameters.js';
import { compileSelector, type CompiledSelector } from './selector.js';
import type { ConstraintType, MonitorState, TemporalConstraint, TracePoint } from './types.js';

/**
 * A constraint with its selectors compiled once. Not serialisable (it holds predicates): persist the
 * `MonitorState` and compile the constraint again from the workflow after a restart.
 */
export interface CompiledConstraint {
  /** The constraint as defined (for a registered type, its name and type; the options are on `custom`). */
  readonly constraint: TemporalConstraint;
  /** A built-in type; for a registered one, its name (see `custom`). */
  readonly type: ConstraintType;
  /** `until` reads it as A. Absent for types without a trigger and for `next` without one. */
  readonly trigger?: CompiledSelector;
  /** `until` reads it as B. */
  readonly target?: CompiledSelector;
  readonly condition?: CompiledSelector;
  /**
   * Set for a constraint of a registered type (`defineConstraintType`): its evaluator and parsed options. The
   * monitor functions step it through the evaluator; the anticipation searches leave it alone (never doomed,
   * never reported unsatisfiable), since its automaton is the author's.
   */
  readonly custom?: CustomConstraint;
}

/**
 * Compiles a constraint of a registered type, its options already checked against the type's schema.
 * @param constraint the constraint as defined (its `type` is the registered name), kept as `constraint`.
 */
export function compileCustomConstraint(constraint: { name: string; type: string }, custom: CustomConstraint): CompiledConstraint {
  // `type` holds the registered name: the switches over built-in types are never reached for it (see `custom`).
  return { constraint: constraint as TemporalConstraint, type: constraint.type as ConstraintType, custom };
}

/**
 * Checks and compiles a constraint for the incremental monitor.
 * @throws {InvalidOptionError} when a parameter the type requires is missing or a selector is malformed.
 * @example
 * const compiled = compileConstraint({ name: 'resolve', type: 'eventually', target: 'resolution' });
 * let state = initialMonitorState(compiled);
 * for (const entered of ['greeting', 'resolution']) state = stepMonitor(compiled, state, entered);
 * state.verdict; // 'satisfied'
 */
export function compileConstraint(constraint: TemporalConstraint): CompiledConstraint {
  assertConstraintParameters(constraint);
  const compile = (parameter: 'trigger' | 'target' | 'condition') => {
    const selector = constraint[parameter];
    return selector === undefined ? undefined : compileSelector(selector, parameter);
  };
  const condition = constraint.type === 'always' ? compile('condition') : undefined;
  const target = constraint.type === 'always' ? undefined : compile('target');
  const trigger = ['precedence', 'response', 'until', 'next'].includes(constraint.type) ? compile('trigger') : undefined;
  return { constraint, type: constraint.type, ...(trigger && { trigger }), ...(target && { target }), ...(condition && { condition }) };
}

/** The monitor of an empty trace: pending, nothing stepped, nothing open. */
export function initialMonitorState(compiled: CompiledConstraint): MonitorState {
  if (compiled.custom) return startCustom(compiled.custom);
  return { verdict: 'pending', steps: 0, closed: false };
}

/**
 * Steps the monitor with the next state of the trace, in O(1) whatever the history. Pure: returns `state` itself once
 * the verdict is decided or the trace is closed (a decided verdict never changes), otherwise a new object (the
 * position counter advances).
 *
 * The caller feeds the initial state as the first step and collapses consecutive duplicates (staying in a state adds
 * nothing to a trace). If a duplicate does arrive, it is one more position, exactly as `evaluateConstraint` reads the
 * same array: nothing breaks, but `next` would then see the state followed by itself.
 * @example
 * const compiled = compileConstraint({ name: 'verify-first', type: 'precedence', trigger: 'process_refund', target: 'verify_identity' });
 * const state = stepMonitor(compiled, stepMonitor(compiled, initialMonitorState(compiled), 'greeting'), 'process_refund');
 * state.violation; // { step: 2, state: 'process_refund', atClose: false }
 */
export function stepMonitor(compiled: CompiledConstraint, state: MonitorState, enteredState: string): MonitorState {
  if (compiled.custom) return stepCustom(compiled.custom, state, enteredState);
  if (state.verdict !== 'pending' || state.closed) return state;
  const at: TracePoint = { step: state.steps + 1, state: enteredState };
  const trigger = compiled.trigger?.matches(enteredState) ?? false;
  const target = compiled.target?.matches(enteredState) ?? false;
  if (compiled.constraint.each) {
    if (compiled.type === 'precedence') {
      // `open` is the fresh target since the last trigger: a trigger uses it up (the trigger's own target is not before it).
      if (trigger) return state.open ? advance(at, undefined) : decide(at, 'violated', state.open);
      return advance(at, target ? at : state.open);
    }
    if (compiled.type === 'response') {
      // `open` is the trigger waiting for its own target; another trigger before it is a violation.
      if (state.open && !target) return trigger ? decide(at, 'violated', state.open) : advance(at, state.open);
      return advance(at, trigger ? at : undefined);
    }
  }
  switch (compiled.type) {
    case 'eventually':
      return target ? decide(at, 'satisfied', state.open) : advance(at, state.open);
    case 'never':
      return target ? decide(at, 'violated', state.open) : advance(at, state.open);
    case 'always':
      return compiled.condition!.matches(enteredState) ? advance(at, state.open) : decide(at, 'violated', state.open);
    case 'precedence':
      // The trigger is checked first: a state that is both trigger and target has no target strictly before it.
      if (trigger) return decide(at, 'violated', state.open);
      return target ? decide(at, 'satisfied', state.open) : advance(at, state.open);
    case 'response': {
      // A target answers every earlier trigger; a state that is both also opens a new obligation after itself.
      const open = target ? undefined : state.open;
      return advance(at, trigger && !open ? at : open);
    }
    case 'until': {
      const open = state.open ?? (trigger ? at : undefined);
      if (!open) return advance(at, undefined);
      if (target) return decide(at, 'satisfied', open);
      return trigger ? advance(at, open) : decide(at, 'violated', open);
    }
    case 'next':
      if (!compiled.trigger) return state.steps === 0 ? advance(at, at) : decide(at, target ? 'satisfied' : 'violated', state.open);
      if (state.open && !target) return decide(at, 'violated', state.open);
      return advance(at, trigger ? at : undefined);
  }
}

/**
 * Closes the trace (the session ended): a pending verdict becomes `satisfied` or `violated`, never stays pending.
 * Closing twice returns the same object.
 */
export function closeMonitor(compiled: CompiledConstraint, state: MonitorState): MonitorState {
  if (compiled.custom) return closeCustom(compiled.custom, state);
  if (state.closed) return state;
  if (state.verdict !== 'pending') return { ...state, closed: true };
  // What is still owed when the trace ends: a target never reached, a second state that never came, or an open
  // obligation (unanswered trigger, unfinished `until`, trigger as the last state).
  // A `precedence` with `each` keeps its fresh target in `open`: nothing is owed.
  const eachPrecedence = compiled.type === 'precedence' && compiled.constraint.each === true;
  const owed = compiled.type === 'eventually' || (compiled.type === 'next' && !compiled.trigger) || (state.open !== undefined && !eachPrecedence);
  const closed: MonitorState = { ...state, verdict: owed ? 'violated' : 'satisfied', closed: true };
  if (owed) closed.violation = { step: state.steps, state: null, atClose: true };
  return closed;
}

/**
 * The monitor state entering `proposedState` would produce, without committing it: `stepMonitor` is pure, so this is
 * the same function under a name that says what the caller means. Keep the old state if the step is refused.
 * Ask "would entering X violate this constraint?" with `wouldViolate`, and "would it doom it?" with
 * `isDoomed(compiled, previewStep(compiled, state, X), X, graph)`. Do not preview the current state itself: the caller
 * collapses it, so it never reaches the monitor.
 */
export const previewStep: (compiled: CompiledConstraint, state: MonitorState, proposedState: string) => MonitorState = stepMonitor;

/**
 * Whether entering `proposedState` next would turn this monitor `violated` (false if it already is).
 * @example
 * if (wouldViolate(compiled, state, 'process_refund')) refuse('verify the identity first');
 */
export function wouldViolate(compiled: CompiledConstraint, state: MonitorState, proposedState: string): boolean {
  return state.verdict === 'pending' && previewStep(compiled, state, proposedState).verdict === 'violated';
}

/**
 * The monitor as it would stand had no target entered after trace position `seen` counted, for the two types whose
 * target lets later states through: `precedence` (a trigger needs a target before it) and `until` (a target ends the
 * obligation to stay in A). A verdict one of those reached after `seen` is `pending` again, its `until` obligation
 * still open, at position `length` (the trace's length now); any other monitor is returned as it is.
 *
 * The pre-emptive check steps a proposed state from it as well as from the monitor itself: a tool call made in the
 * same model response as the call that entered the target was decided before that call's result could be seen (a
 * response with several tool calls makes them all at once), so the target cannot be what allows it.
 * @example
 * const compiled = compileConstraint({ name: 'verify-first', type: 'precedence', trigger: 'process_refund', target: 'verify_identity' });
 * let state = initialMonitorState(compiled);
 * for (const entered of ['greeting', 'verify_identity']) state = stepMonitor(compiled, state, entered); // satisfied at 2
 * wouldViolate(compiled, ignoreTargetsAfter(compiled, state, 1, 2), 'process_refund'); // true: position 2 was not seen
 * wouldViolate(compiled, ignoreTargetsAfter(compiled, state, 2, 2), 'process_refund'); // false
 */
export function ignoreTargetsAfter(compiled: CompiledConstraint, state: MonitorState, seen: number, length: number): MonitorState {
  if (compiled.custom) return state;
  // `each` precedence: a fresh target entered after `seen` is not fresh for this move.
  if (compiled.type === 'precedence' && compiled.constraint.each) {
    if (state.verdict !== 'pending' || state.closed || state.open === undefined || state.open.step <= seen) return state;
    return { verdict: 'pending', steps: length, closed: false };
  }
  // A decided monitor's `steps` is the position that decided it.
  if (state.verdict !== 'satisfied' || state.closed || state.steps <= seen) return state;
  if (compiled.type !== 'precedence' && compiled.type !== 'until') return state;
  const pending: MonitorState = { verdict: 'pending', steps: length, closed: false };
  if (state.open) pending.open = state.open;
  return pending;
}

/**
 * The monitor's automaton state as a short string: two monitor states with the same key react identically to every
 * continuation. Positions and the states named in `open` only serve reporting, so they are left out.
 */
export function monitorKey(state: MonitorState): string {
  return `${state.verdict}${state.closed ? '.' : ''}${state.open ? '+' : ''}`;
}

function advance(at: TracePoint, open: TracePoint | undefined): MonitorState {
  const next: MonitorState = { verdict: 'pending', steps: at.step, closed: false };
  if (open) next.open = open;
  return next;
}

function decide(at: TracePoint, verdict: 'satisfied' | 'violated', open: TracePoint | undefined): MonitorState {
  const next: MonitorState = { verdict, steps: at.step, closed: false };
  if (open) next.open = open;
  if (verdict === 'violated') next.violation = { step: at.step, state: at.state, atClose: false };
  return next;
}
