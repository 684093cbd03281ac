/** The seven temporal constraint types (docs/workflows.md). */
export const CONSTRAINT_TYPES = ['eventually', 'never', 'always', 'precedence', 'response', 'until', 'next'] as const;
export type ConstraintType = (typeof CONSTRAINT_TYPES)[number];

/**
 * Names a set of states: one state name, `!name` (any state but that one), `*` (any state),
 * or a list of those (any of them).
 */
export type StateSelector = string | readonly string[];

/** Three-valued verdict of a constraint on a trace. Once not `pending`, it never changes. */
export type Verdict = 'satisfied' | 'violated' | 'pending';

/** The parameters a constraint type reads. */
export type ConstraintParameter = 'trigger' | 'target' | 'condition';

/** A temporal constraint over a session's trace of states: what `evaluateConstraint` and the monitors read. */
export interface TemporalConstraint {
  name: string;
  type: ConstraintType;
  trigger?: StateSelector;
  target?: StateSelector;
  condition?: StateSelector;
  /**
   * `precedence` and `response` only: every occurrence needs its own target. `precedence`: a target since the previous
   * trigger, for every trigger; `response`: a target after each trigger before the next trigger. @default false
   */
  each?: boolean;
}

/** The types `each` applies to. */
export const EACH_TYPES: readonly ConstraintType[] = ['precedence', 'response'];

/**
 * Which parameters each type requires and which it also accepts. `until` reads `trigger` as A and `target` as B;
 * `next` without a trigger constrains the second state of the trace.
 */
export const CONSTRAINT_PARAMETERS: Readonly<
  Record<ConstraintType, { required: readonly ConstraintParameter[]; optional: readonly ConstraintParameter[] }>
> = {
  eventually: { required: ['target'], optional: [] },
  never: { required: ['target'], optional: [] },
  always: { required: ['condition'], optional: [] },
  precedence: { required: ['trigger', 'target'], optional: [] },
  response: { required: ['trigger', 'target'], optional: [] },
  until: { required: ['trigger', 'target'], optional: [] },
  next: { required: ['target'], optional: ['trigger'] },
};

/**
 * The workflow's allowed moves, as the anticipation search reads them. Treated as immutable: results are memoised per
 * graph object, so build a new graph when the workflow changes. `createTransitionGraph` builds one from a list of
 * transitions and applies the rule that a state with no outgoing transitions listed allows any next state.
 */
export interface TransitionGraph {
  /** Every state of the workflow. */
  readonly states: readonly string[];
  /** The states that may be entered directly after `state`. A successor equal to `state` adds nothing to a trace. */
  successors(state: string): readonly string[];
  /**
   * Whether every state may follow `state` (no transitions listed), so `successors(state)` is all of `states`. The
   * searches then treat the move as one symbolic step instead of visiting each successor: a workflow of N such
   * states would otherwise cost N x N. Optional: without it, the searches read `successors`.
   */
  isUnconstrained?(state: string): boolean;
}

/** One position of a trace: its 1-based index and the state entered there. */
export interface TracePoint {
  step: number;
  state: string;
}

/** Where a monitor's verdict turned `violated`. */
export interface ViolationPoint {
  /** 1-based trace position of the offending state; for a violation found when the trace closed, the trace's length. */
  step: number;
  /** The offending state, or `null` when the violation was found by closing the trace. */
  state: string | null;
  /** Whether closing the trace caused the violation (an obligation was left open). */
  atClose: boolean;
}

/**
 * The incremental monitor's whole memory of a trace: plain JSON, a few fields, whatever the history length, so a
 * session store can persist it and a test can write it by hand.
 */
export interface MonitorState {
  verdict: Verdict;
  /** How many trace positions have been stepped (the trace's length so far). */
  steps: number;
  /** Whether the trace has ended (`closeMonitor`). A closed monitor's verdict is never `pending`. */
  closed: boolean;
  /**
   * The obligation still open and where it started, when the type has one: `response` the earliest unanswered
   * trigger, `until` the first state in A, `next` the trigger just entered, `next` without trigger the first state.
   * Together with `verdict` it is the monitor's automaton state; `steps` and the positions only serve reporting.
   * Kept after the verdict is decided, so a message can name the trigger that was left unanswered.
   */
  open?: TracePoint;
  /** Set when the verdict turns `violated`. */
  violation?: ViolationPoint;
  /** A registered (non-built-in) type's own memory (see `defineConstraintType`): plain JSON. */
  memory?: unknown;
  /**
   * Why a registered type's evaluator failed (it threw, or returned no verdict): the monitor then stays `pending` for
   * good and is stepped no more, so a broken evaluator never blocks an agent.
   */
  failed?: string;
}
