import { closeMonitor, monitorKey, stepMonitor, type CompiledConstraint } from './monitor.js';
import type { MonitorState, TransitionGraph } from './types.js';

/**
 * One node for every unconstrained state that none of a constraint's selectors names. The monitor cannot tell them
 * apart (each selector matches all of them or none), and each may be followed by any state, so they have the same
 * futures: searching one node instead of each keeps a workflow of N unconstrained states from costing N per
 * constraint, and N x N per search.
 */
const OTHERS: unique symbol = Symbol('unnamed unconstrained states');
type Node = string | typeof OTHERS;

/** A graph's states split once by whether they list transitions; kept per graph object, which is immutable. */
interface GraphShape {
  /** States with listed transitions (or none at all: terminal), visited one by one. */
  listed: readonly string[];
  unconstrained: ReadonlySet<string>;
  /** The graph's own answer, which may also be true for a name that is not a state (then it goes anywhere). */
  isUnconstrained: (state: string) => boolean;
}

const shapes = new WeakMap<TransitionGraph, GraphShape>();

function shapeOf(graph: TransitionGraph): GraphShape {
  let shape = shapes.get(graph);
  if (!shape) {
    const isUnconstrained = graph.isUnconstrained ? (state: string) => graph.isUnconstrained!(state) : () => false;
    const listed: string[] = [];
    const unconstrained = new Set<string>();
    for (const state of graph.states) {
      if (isUnconstrained(state)) unconstrained.add(state);
      else listed.push(state);
    }
    shapes.set(graph, (shape = { listed, unconstrained, isUnconstrained }));
  }
  return shape;
}

/**
 * Whether some continuation the graph allows from (`startState`, `start`) reaches a configuration whose closing, or
 * whose next step, is satisfied. Breadth-first over the product of the monitor's automaton (see `monitorKey`) and
 * the graph, with the constraint's unnamed unconstrained states as one node (`OTHERS`). Moving on from an
 * unconstrained state W with monitor key K steps the monitor with every node but W (a flood). Monitors with the same
 * key react alike, so once K flooded from some W1, a flood from W2 finds one configuration not found already: the
 * one entering W1. Cost: O(keys x (named states + listed states + listed transitions)), whatever the number of
 * unconstrained states.
 */
export function canReachSatisfied(compiled: CompiledConstraint, start: MonitorState, startState: string, graph: TransitionGraph): boolean {
  const shape = shapeOf(graph);
  const named = new Set([compiled.trigger, compiled.target, compiled.condition].flatMap((selector) => selector?.names ?? []));
  const namedUnconstrained = [...named].filter((state) => shape.unconstrained.has(state));
  const othersCount = shape.unconstrained.size - namedUnconstrained.length;
  const representative = firstNotIn(shape.unconstrained, named);
  const nodeOf = (state: string): Node => (shape.unconstrained.has(state) && !named.has(state) ? OTHERS : state);
  const stateOf = (node: Node): string => (node === OTHERS ? representative! : node);
  // From one of the others, another one is a move only if there are two; from a named state, if there is one.
  const floodFrom = (node: Node): Node[] => [...namedUnconstrained, ...shape.listed, ...(othersCount >= (node === OTHERS ? 2 : 1) ? [OTHERS as Node] : [])];
  const floodedFrom = new Map<string, Node>(); // monitor key -> the node its flood started from

  const successorsOf = (node: Node, monitorState: MonitorState): readonly Node[] => {
    if (node !== OTHERS && !shape.isUnconstrained(node)) return graph.successors(node).map(nodeOf);
    const key = monitorKey(monitorState);
    const first = floodedFrom.get(key);
    if (first !== undefined) return [first];
    floodedFrom.set(key, node);
    return floodFrom(node);
  };

  const startNode = nodeOf(startState);
  const visited = new Set([configurationKey(startNode, start)]);
  const queue: Array<[Node, MonitorState]> = [[startNode, start]];
  for (let index = 0; index < queue.length; index++) {
    const [node, monitorState] = queue[index]!;
    if (closeMonitor(compiled, monitorState).verdict === 'satisfied') return true;
    for (const next of successorsOf(node, monitorState)) {
      if (next === node && node !== OTHERS) continue; // staying adds nothing to a trace
      const stepped = stepMonitor(compiled, monitorState, stateOf(next));
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

/** The first of `states` not in `excluded`: at most |excluded| + 1 looks. */
function firstNotIn(states: Iterable<string>, excluded: ReadonlySet<string>): string | undefined {
  for (const state of states) if (!excluded.has(state)) return state;
  return undefined;
}

/** A monitor key has no control characters, so `\0` (a state follows) and `\x01` (the others) cannot collide. */
function configurationKey(node: Node, monitorState: MonitorState): string {
  return node === OTHERS ? `${monitorKey(monitorState)}\u0001` : `${monitorKey(monitorState)}\u0000${node}`;
}
