import { closeMonitor, initialMonitorState, monitorKey, stepMonitor, type CompiledConstraint } from './monitor.js';
import type { MonitorState, TransitionGraph, ViolationPoint } from './types.js';

/** Bound on the search: product configurations visited per constraint, so a huge graph costs bounded time. */
export const DEFAULT_COUNTEREXAMPLE_BUDGET = 1_000_000;

/** Options of `findCounterexample`. */
export interface CounterexampleOptions {
  /**
   * Whether a session may end in `state`, so obligations still open there count as broken (`eventually`,
   * `response`, `until`, `next`). Without it, only violations by entering a state are searched: every workflow lets a
   * session stop early, and reporting that for each `eventually` would be noise.
   * @default () => false
   */
  canEnd?: (state: string) => boolean;
  /** Most (state, monitor) configurations to visit before giving up. @default 1_000_000 */
  budget?: number;
}

/** The shortest path the graph allows that violates a constraint. */
export interface Counterexample {
  /** The states entered, from the initial state; consecutive states differ. */
  path: string[];
  /** Where the violation happened: by entering the last state, or (`atClose`) by the session ending there. */
  violation: ViolationPoint;
}

/** `findCounterexample`'s answer: a path, `none` (the graph cannot break it) or `budget` (the search gave up). */
export type CounterexampleResult = { kind: 'found'; counterexample: Counterexample } | { kind: 'none' } | { kind: 'budget'; visited: number };

/**
 * Searches the product of the constraint's monitor (a handful of automaton states, see `monitorKey`) and the graph,
 * breadth first from `initialState`, for the shortest trace the transitions allow that violates the constraint
 *. A violation by entering a state is found when the state is generated; one by ending the
 * session, when a path reaching a state where `canEnd` is made. Both are checked as each path is made, so
 * breadth-first order makes the first found the shortest. Cost: O(configurations x successors), at most `budget` configurations.
 * @example
 * const graph = createTransitionGraph({ states: ['greeting', 'verify', 'refund'], transitions: [
 *   { from: 'greeting', to: 'verify' }, { from: 'greeting', to: 'refund' }, { from: 'verify', to: 'refund' }] });
 * const compiled = compileConstraint({ name: 'verify_first', type: 'precedence', trigger: 'refund', target: 'verify' });
 * findCounterexample(compiled, graph, 'greeting'); // { kind: 'found', counterexample: { path: ['greeting', 'refund'], ... } }
 */
export function findCounterexample(
  compiled: CompiledConstraint,
  graph: TransitionGraph,
  initialState: string,
  { canEnd = () => false, budget = DEFAULT_COUNTEREXAMPLE_BUDGET }: CounterexampleOptions = {},
): CounterexampleResult {
  // A registered type's memory is the author's: no finite configuration key to search by.
  if (compiled.custom) return { kind: 'none' };
  const first = stepMonitor(compiled, initialMonitorState(compiled), initialState);
  if (first.verdict === 'violated') return found([initialState], first.violation!);
  if (first.verdict === 'satisfied') return { kind: 'none' };
  const endingViolation = (state: string, monitor: MonitorState) => (canEnd(state) ? closeMonitor(compiled, monitor).violation : undefined);
  const endsBroken = endingViolation(initialState, first);
  if (endsBroken) return found([initialState], endsBroken);
  // Parallel arrays hold the search tree: a configuration's state, monitor and parent index.
  const states = [initialState];
  const monitors = [first];
  const parents = [-1];
  const visited = new Set([`${monitorKey(first)}\u0000${initialState}`]);
  const pathTo = (index: number, last?: string): string[] => {
    const path = last === undefined ? [] : [last];
    for (let at = index; at >= 0; at = parents[at]!) path.push(states[at]!);
    return path.reverse();
  };
  for (let index = 0; index < states.length; index++) {
    const state = states[index]!;
    const monitor = monitors[index]!;
    for (const next of graph.successors(state)) {
      if (next === state) continue; // staying adds nothing to a trace
      const stepped = stepMonitor(compiled, monitor, next);
      if (stepped.verdict === 'violated') return found(pathTo(index, next), stepped.violation!);
      if (stepped.verdict === 'satisfied') continue; // a decided verdict never changes
      // Ending is checked as a path is made, like entering: checked when taken from the queue, a shorter ending
      // still queued would lose to a longer path found while expanding an earlier configuration of its length.
      const ending = endingViolation(next, stepped);
      if (ending) return found(pathTo(index, next), ending);
      const key = `${monitorKey(stepped)}\u0000${next}`;
      if (visited.has(key)) continue;
      if (visited.size >= budget) return { kind: 'budget', visited: visited.size };
      visited.add(key);
      states.push(next);
      monitors.push(stepped);
      parents.push(index);
    }
  }
  return { kind: 'none' };
}

function found(path: string[], violation: ViolationPoint): CounterexampleResult {
  return { kind: 'found', counterexample: { path, violation } };
}
