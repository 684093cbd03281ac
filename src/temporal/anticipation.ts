import { initialMonitorState, stepMonitor, type CompiledConstraint } from './monitor.js';
import { canReachSatisfied } from './product-search.js';
import type { CompiledSelector } from './selector.js';
import type { MonitorState, TransitionGraph } from './types.js';

// Answers per compiled constraint and graph object, by workflow state: a pending monitor's configuration (see
// `monitorKey`) is only whether it has an open obligation, so each state holds two answers, without and with one.
// No key string is built per call: this runs for every constraint on every state entered. WeakMaps let the answers
// be collected with the workflow that owns them.
const memo = new WeakMap<CompiledConstraint, WeakMap<TransitionGraph, Map<string, [withoutOpen?: boolean, withOpen?: boolean]>>>();

/**
 * Whether a pending verdict can no longer become `satisfied` in any continuation the graph allows
 * (anticipation). A continuation starts at `currentWorkflowState`, enters successor states one at a time
 * (a successor equal to the state it leaves is skipped: staying adds nothing to a trace), and may end the trace at
 * any point. Non-pending verdicts are never doomed. It is a prediction that assumes the agent follows the graph; it
 * never changes the verdict.
 *
 * Searches the product of the monitor's automaton (a handful of states, see `monitorKey`) and the graph, breadth
 * first, once per (constraint, graph, workflow state, monitor key); later calls are a map lookup. States with no
 * transitions listed that the constraint does not name count as one (see `canReachSatisfied`), so the cost grows
 * with the listed transitions, not with states x states. The graph is treated as immutable.
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
  if (monitorState.verdict !== 'pending' || monitorState.closed || compiled.custom) return false;
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
  if (compiled.custom) return true; // a registered type's triggers are its own
  if (compiled.type === 'next' && !compiled.trigger) return graph.successors(initialState).some((state) => state !== initialState);
  const reachable = reachableSet(graph, initialState);
  if (compiled.condition) return someMatch(compiled.condition, reachable, false);
  return someMatch((compiled.trigger ?? compiled.target)!, reachable, true);
}

// Reachable states per graph and start: a linter asks once per constraint, and a file may hold thousands of each.
const reachableMemo = new WeakMap<TransitionGraph, Map<string, ReadonlySet<string>>>();

function reachableSet(graph: TransitionGraph, start: string): ReadonlySet<string> {
  let byStart = reachableMemo.get(graph);
  if (!byStart) reachableMemo.set(graph, (byStart = new Map()));
  let reachable = byStart.get(start);
  if (!reachable) byStart.set(start, (reachable = new Set(reachableStates(graph, start))));
  return reachable;
}

/**
 * Whether some state of `states` is (`wanted` true) or is not (false) matched by `selector`, in O(names): every state
 * the selector does not name is matched alike (all of them, for `*` and `!x`, or none), so one probe answers for them.
 */
function someMatch(selector: CompiledSelector, states: ReadonlySet<string>, wanted: boolean): boolean {
  let namedIn = 0;
  for (const name of selector.names) {
    if (!states.has(name)) continue;
    namedIn += 1;
    if (selector.matches(name) === wanted) return true;
  }
  // A string longer than every name is none of them.
  const unnamed = '\u0000'.repeat(1 + selector.names.reduce((longest, name) => Math.max(longest, name.length), 0));
  return states.size > namedIn && selector.matches(unnamed) === wanted;
}

/**
 * For a linter: whether some session that follows the graph from `initialState` can satisfy the constraint
 * (the fresh monitor, stepped with the initial state, is satisfied or not doomed).
 */
export function canEverBeSatisfied(compiled: CompiledConstraint, graph: TransitionGraph, initialState: string): boolean {
  if (compiled.custom) return true; // no search over a registered type's automaton
  const state = stepMonitor(compiled, initialMonitorState(compiled), initialState);
  if (state.verdict !== 'pending') return state.verdict === 'satisfied';
  return !isDoomed(compiled, state, initialState, graph);
}

/**
 * Every state reachable from `start` along the graph, `start` included, in breadth-first order. O(states +
 * listed transitions): the first unconstrained state reached adds every state at once, and later ones add nothing.
 */
export function reachableStates(graph: TransitionGraph, start: string): string[] {
  const seen = new Set([start]);
  const queue = [start];
  let everyStateAdded = false;
  for (let index = 0; index < queue.length; index++) {
    const unconstrained = graph.isUnconstrained?.(queue[index]!) ?? false;
    if (unconstrained && everyStateAdded) continue;
    everyStateAdded ||= unconstrained;
    for (const next of unconstrained ? graph.states : graph.successors(queue[index]!)) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return [...seen];
}
