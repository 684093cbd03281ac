import type { CompiledConstraint, TransitionGraph } from '../temporal/index.js';
import { compiledConstraints } from './constraints.js';
import { constraintNames, isTransparentState } from './transparent.js';
import type { Workflow } from './workflow.js';

const cache = new WeakMap<Workflow, readonly TransitionGraph[]>();

/**
 * The workflow's transitions as each constraint's monitor meets them, in the order of `compiledConstraints`: for
 * the searches that predict (`isDoomed`) and lint (`canEverBeSatisfied`, `canEverFire`, counterexamples). A
 * transparent state the constraint does not name is no step for it, so it is left out (a move through it is a move
 * from the state before it, which must list the next one); a transparent state it names is a step, and since the move
 * out of it is judged from the state before it, it may be followed by whatever such a state may be followed by.
 * Without transparent states, the workflow itself for every constraint. Worked out once per workflow: the doomed
 * check reads it for every constraint on every state entered.
 */
export function seenGraphs(workflow: Workflow): readonly TransitionGraph[] {
  let graphs = cache.get(workflow);
  if (!graphs) {
    const transparent = workflow.stateNames.some((state) => isTransparentState(workflow, state));
    graphs = compiledConstraints(workflow).map((compiled) => (transparent ? buildSeenGraph(workflow, compiled) : workflow));
    cache.set(workflow, graphs);
  }
  return graphs;
}

function buildSeenGraph(workflow: Workflow, compiled: CompiledConstraint): TransitionGraph {
  const initial = workflow.initialState;
  // The initial state is always a step: every monitor sees the state a session starts in.
  const hidden = new Set(workflow.stateNames.filter((state) => state !== initial && isTransparentState(workflow, state) && !constraintNames(compiled, state)));
  const states = Object.freeze(workflow.stateNames.filter((state) => !hidden.has(state)));
  const unconstrained = new Set<string>();
  const successors = new Map<string, readonly string[]>();
  const own = (state: string) => workflow.successors(state).filter((next) => !hidden.has(next));
  // States a move is judged from (anchors): those that are not transparent, and the initial state.
  const anchors = states.filter((state) => state === initial || !isTransparentState(workflow, state));
  for (const state of anchors) {
    if (workflow.isUnconstrained(state)) unconstrained.add(state);
    else successors.set(state, Object.freeze(own(state)));
  }
  for (const state of states) {
    if (anchors.includes(state)) continue;
    // A transparent state this constraint names: followed by what any state that may move into it may be followed by.
    const from = anchors.filter((anchor) => workflow.isUnconstrained(anchor) || workflow.successors(anchor).includes(state));
    if (from.some((anchor) => unconstrained.has(anchor))) {
      unconstrained.add(state);
      continue;
    }
    successors.set(state, Object.freeze([...new Set(from.flatMap((anchor) => successors.get(anchor) ?? []))]));
  }
  const none: readonly string[] = Object.freeze([]);
  return {
    states,
    successors: (state) => (unconstrained.has(state) ? states : (successors.get(state) ?? (hidden.has(state) ? Object.freeze(own(state)) : none))),
    isUnconstrained: (state) => unconstrained.has(state),
  };
}
