import type { Workflow } from '../workflow/index.js';
import type { MonitorSession } from './types.js';

/**
 * A check that a value read from a store is a session of `workflow`: every field the monitor reads has its type, the
 * current state and every constraint monitor belong to this workflow. A store shared with other code, a session
 * written by another workflow, or a corrupt entry then restarts the session instead of failing every call on it.
 * @example
 * const isSession = sessionShapeOf(workflow);
 * isSession({ workflow: 'x' }) // false
 */
export function sessionShapeOf(workflow: Workflow): (value: unknown) => value is MonitorSession {
  const constraints = workflow.definition.constraints.map((constraint) => constraint.name);
  return (value: unknown): value is MonitorSession => {
    if (!isRecord(value)) return false;
    const { workflow: snapshot, turns, steps, stepCount, pendingToolStates } = value;
    if (!isCount(turns) || !isCount(stepCount) || !Array.isArray(steps) || !Array.isArray(pendingToolStates)) return false;
    if (!pendingToolStates.every((pending) => isRecord(pending) && typeof pending.state === 'string' && workflow.state(pending.state) !== undefined && typeof pending.toolName === 'string' && (pending.args === undefined || isRecord(pending.args)))) return false;
    if (!isRecord(snapshot) || (snapshot.status !== 'active' && snapshot.status !== 'closed') || snapshot.workflow !== workflow.name) return false;
    if (typeof snapshot.state !== 'string' || workflow.state(snapshot.state) === undefined) return false;
    if (!Array.isArray(snapshot.trace) || !isCount(snapshot.traceLength) || !(isCount(snapshot.historyLimit) || snapshot.historyLimit === null)) return false;
    if (!Array.isArray(snapshot.doomed) || !Array.isArray(snapshot.violations) || !Array.isArray(snapshot.deviations) || !Array.isArray(snapshot.refusals)) return false;
    if (!isRecord(snapshot.interventions) || !Array.isArray(snapshot.interventions.pending) || !isRecord(snapshot.interventions.applications)) return false;
    const monitors = snapshot.monitors;
    return isRecord(monitors) && constraints.every((name) => isMonitorState(monitors[name]));
  };
}

function isMonitorState(value: unknown): boolean {
  return isRecord(value) && typeof value.verdict === 'string' && isCount(value.steps) && typeof value.closed === 'boolean';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && value >= 0;
}
