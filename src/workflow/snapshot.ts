import type { InterventionState } from '../intervene/index.js';
import type { MonitorState } from '../temporal/index.js';
import type { Severity } from './types.js';

/** Which tier of the classifier decided a state, or `initial` for the state a session starts in. */
export type ClassificationMethod = 'initial' | 'tool_call' | 'pattern' | 'tier' | 'embedding' | 'fallback';

/** A constraint that became violated. */
export interface ViolationRecord {
  constraint: string;
  type: string;
  severity: Severity;
  /** Trace position at which it became violated; the trace length when it was violated by closing. */
  position: number;
  /** The state whose entry violated it, absent when closing the trace did. */
  state?: string;
  step?: number;
  at: number;
  /** What happened and what would have satisfied the constraint. */
  message: string;
  /**
   * The response that made it was withheld before delivery (the host replaced it): its state never entered the trace,
   * so the constraint's verdict is unchanged and it still guards later responses, and `position` is where the state
   * would have entered.
   */
  withheld?: true;
}

/** A move along a transition the workflow does not list (or whose guard failed). */
export interface DeviationRecord {
  from: string;
  to: string;
  position: number;
  step?: number;
  at: number;
}

/** An attempt refused before it happened (a tool call whose state would have violated a critical constraint). */
export interface RefusalRecord {
  state: string;
  /** `workflow`: a constraint or the deviation policy refused it; `guard`: a tool guard (the rules) did. */
  by: 'workflow' | 'guard';
  /** Constraints it would have violated; empty when the deviation policy or a guard refused it. */
  constraints: string[];
  reason: string;
  step?: number;
  at: number;
}

/**
 * Everything the workflow engine knows about one session. Plain JSON: a store can persist it, a test can write it
 * by hand, and `structuredClone` copies it. Never mutated in place; `transition()` returns a new one.
 */
export interface WorkflowSnapshot {
  status: 'active' | 'closed';
  workflow: string;
  /** The current state. */
  state: string;
  /**
   * States entered, consecutive duplicates collapsed. Only the last `historyLimit` are kept so a step costs the same
   * whatever the session's length; `traceLength` counts them all, and the constraint monitors saw them all.
   */
  trace: string[];
  traceLength: number;
  /**
   * In a transparent state: the last state before it that is not transparent, from which the next move is judged.
   * Absent otherwise.
   */
  anchor?: string;
  historyLimit: number;
  /**
   * For `grounded` constraints: the agent's messages the user answered when each state recognised in the user's turn
   * was last entered (what that yes confirmed), by state, bounded. Absent until one is entered.
   */
  answered?: Record<string, string>;
  /** Incremental constraint monitor states, by constraint name. */
  monitors: Record<string, MonitorState>;
  /** Pending constraints that can no longer be satisfied if the agent follows the workflow. */
  doomed: string[];
  /**
   * Every violation, in order; each constraint is violated at most once, except by responses withheld before delivery
   * (`withheld`), which leave the verdict alone. Past `historyLimit` entries the oldest are dropped.
   */
  violations: ViolationRecord[];
  /** The last `historyLimit` deviations. */
  deviations: DeviationRecord[];
  /** The last `historyLimit` refused attempts. */
  refusals: RefusalRecord[];
  interventions: InterventionState;
  startedAt: number;
  updatedAt: number;
}
