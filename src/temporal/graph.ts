import type { TransitionGraph } from './types.js';

/** Input of `createTransitionGraph`. */
export interface TransitionGraphOptions {
  /** Every state of the workflow. */
  states: readonly string[];
  /** The allowed moves. */
  transitions: readonly { from: string; to: string }[];
}

/**
 * Builds the `TransitionGraph` that anticipation searches, from a workflow's states and transitions. Applies
 * DESIGN.md section 4: a state with no outgoing transitions listed (or one the workflow does not know) allows any
 * next state. Successor lists are computed once, in first-listed order, without duplicates.
 * @example
 * const graph = createTransitionGraph({ states: ['a', 'b', 'c'], transitions: [{ from: 'a', to: 'b' }] });
 * graph.successors('a'); // ['b']
 * graph.successors('b'); // ['a', 'b', 'c'] (none listed: anything goes)
 */
export function createTransitionGraph({ states, transitions }: TransitionGraphOptions): TransitionGraph {
  const allStates = Object.freeze([...new Set(states)]);
  const outgoing = new Map<string, string[]>();
  for (const { from, to } of transitions) {
    const list = outgoing.get(from) ?? [];
    if (!list.includes(to)) list.push(to);
    outgoing.set(from, list);
  }
  return {
    states: allStates,
    successors: (state) => outgoing.get(state) ?? allStates,
  };
}
