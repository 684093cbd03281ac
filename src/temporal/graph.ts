import type { TransitionGraph } from './types.js';

/** Input of `createTransitionGraph`. */
export interface TransitionGraphOptions {
  /** Every state of the workflow. */
  states: readonly string[];
  /** The allowed moves. */
  transitions: readonly { from: string; to: string }[];
}

/**
 * Builds the `TransitionGraph` that anticipation searches, from a workflow's states and transitions. A state with no outgoing transitions listed (or one the workflow does not know) allows any
 * next state, which `isUnconstrained` reports so searches need not visit each one. Successor lists are computed once,
 * in first-listed order, without duplicates.
 * @example
 * const graph = createTransitionGraph({ states: ['a', 'b', 'c'], transitions: [{ from: 'a', to: 'b' }] });
 * graph.successors('a'); // ['b']
 * graph.successors('b'); // ['a', 'b', 'c'] (none listed: anything goes)
 */
export function createTransitionGraph({ states, transitions }: TransitionGraphOptions): TransitionGraph {
  const allStates = Object.freeze([...new Set(states)]);
  // A set per state keeps the first-listed order and makes a state with thousands of targets linear to build.
  const outgoing = new Map<string, Set<string>>();
  for (const { from, to } of transitions) {
    const targets = outgoing.get(from) ?? new Set();
    targets.add(to);
    outgoing.set(from, targets);
  }
  const lists = new Map([...outgoing].map(([from, targets]) => [from, Object.freeze([...targets])] as const));
  return {
    states: allStates,
    successors: (state) => lists.get(state) ?? allStates,
    isUnconstrained: (state) => !outgoing.has(state),
  };
}
