import { closeMonitor, initialMonitorState, monitorKey, stepMonitor, type CompiledConstraint } from './monitor.js';
import type { MonitorState, TransitionGraph } from './types.js';

// Answers per compiled constraint and graph object, by workflow state: a pending monitor's configuration (see
// `monitorKey`) is only whether it has an open obligation, so each state holds two answers, without and with one.
// No key string is built per call: this runs for every constraint on every state entered. WeakMaps let the answers
// be collected with the workflow that owns them.
const memo = new WeakMap<CompiledConstraint, WeakMap<TransitionGraph, Map<string, [withoutOpen?: boolean, withOpen?: boolean]>>>();

/**
 * Whether a pending verdict can no longer become `satisfied` in any continuation the graph allows (DESIGN.md
 * section 4, anticipation). A continuation starts at `currentWorkflowState`, enters successor states one at a time
 * (a successor equal to the state it leaves is skipped: staying adds nothing to a trace), and may end the trace at
 * any point. Non-pending verdicts are never doomed. It is a prediction that assumes the agent follows the graph; it
 * never changes the verdict.
 *
 * Searches the product of the monitor's automaton (a handful of states, see `monitorKey`) and the graph, breadth
 * first, so the cost is O(states x transitions) once per (constraint, graph, workflow state, monitor key); later
 * calls are a map lookup. The graph is treated as immutable.
 * @param monitorState The monitor after stepping `currentWorkflowState` (the trace's last state).
 * @example
 * const compiled = compileConstraint({ name: 'resolve', type: 'eventually', target: 'resolution' });
 * const graph = createTransitionGraph({ states: ['open', 'resolution', 'closed_account'], transitions: [
 *   { from: 'open', to: 'resolution' }, { from: 'open', to: 'closed_account' }, { from: 'closed_account', to: 'closed_account' }] });
 * let state = initialMonitorState(compiled);
 * for (const entered of ['open', 'closed_account']) state = stepMonitor(compiled, state, entered);
 * isDoomed(compiled, state, 'closed_account', graph); // true
 */
export function isDoomed(compiled: CompiledConstraint, monitorState: MonitorState, currentWorkflowState: string, graph: TransitionGraph): boolean {
  if (monitorState.verdict !== 'pending' || monitorState.closed) return false;
  let byGraph = memo.get(compiled);
  if (!byGraph) memo.set(compiled, (byGraph = new WeakMap()));
  let answers = byGraph.get(graph);
  if (!answers) byGraph.set(graph, (answers = new Map()));
  let byOpen = answers.get(currentWorkflowState);
  if (!byOpen) answers.set(currentWorkflowState, (byOpen = []));
  return (byOpen[monitorState.open ? 1 : 0] ??= !canReachSatisfied(compiled, monitorState, currentWorkflowState, graph));
}

/**
 * For a linter: whether the constraint can ever react to a state of a session that follows the graph from
 * `initialState` (the initial state included). For types with a trigger (`precedence`, `response`, `until`, `next`
 * with a trigger): some trigger state is reachable. `never` and `eventually`: some target state is reachable.
 * `always`: some state outside the condition is reachable. `next` without trigger: some second state exists.
 * A constraint that can never fire is vacuous: usually a misspelt or disconnected state.
 */
export function canEverFire(compiled: CompiledConstraint, graph: TransitionGraph, initialState: string): boolean {
  if (compiled.type === 'next' && !compiled.trigger) return graph.successors(initialState).some((state) => state !== initialState);
  const fires = compiled.trigger?.matches ?? (compiled.condition ? (state: string) => !compiled.condition!.matches(state) : compiled.target!.matches);
  return reachableStates(graph, initialState).some(fires);
}

/**
 * For a linter: whether some session that follows the graph from `initialState` can satisfy the constraint
 * (the fresh monitor, stepped with the initial state, is satisfied or not doomed).
 */
export function canEverBeSatisfied(compiled: CompiledConstraint, graph: TransitionGraph, initialState: string): boolean {
  const state = stepMonitor(compiled, initialMonitorState(compiled), initialState);
  if (state.verdict !== 'pending') return state.verdict === 'satisfied';
  return !isDoomed(compiled, state, initialState, graph);
}

/** Every state reachable from `start` along the graph, `start` included. */
export function reachableStates(graph: TransitionGraph, start: string): string[] {
  const seen = new Set([start]);
  const queue = [start];
  for (let index = 0; index < queue.length; index++) {
    for (const next of graph.successors(queue[index]!)) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return [...seen];
}

function canReachSatisfied(compiled: CompiledConstraint, start: MonitorState, startState: string, graph: TransitionGraph): boolean {
  const visited = new Set([configurationKey(startState, start)]);
  const queue: Array<[string, MonitorState]> = [[startState, start]];
  for (let index = 0; index < queue.length; index++) {
    const [workflowState, monitorState] = queue[index]!;
    if (closeMonitor(compiled, monitorState).verdict === 'satisfied') return true;
    for (const next of graph.successors(workflowState)) {
      if (next === workflowState) continue;
      const stepped = stepMonitor(compiled, monitorState, next);
      if (stepped.verdict === 'satisfied') return true;
      // A violated verdict never recovers, so that branch is dead.
      if (stepped.verdict === 'violated') continue;
      const key = configurationKey(next, stepped);
      if (visited.has(key)) continue;
      visited.add(key);
      queue.push([next, stepped]);
    }
  }
  return false;
}

function configurationKey(workflowState: string, monitorState: MonitorState): string {
  return `${monitorKey(monitorState)}\u0000${workflowState}`;
}
