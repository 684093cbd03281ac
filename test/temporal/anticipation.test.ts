import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canEverBeSatisfied,
  canEverFire,
  compileConstraint,
  createTransitionGraph,
  evaluateConstraint,
  initialMonitorState,
  isDoomed,
  reachableStates,
  stepMonitor,
  type CompiledConstraint,
  type MonitorState,
  type TemporalConstraint,
  type TransitionGraph,
} from '../../src/temporal/index.js';
import { ALPHABET, constraintArbitrary } from './arbitraries.js';

function run(compiled: CompiledConstraint, trace: readonly string[]): MonitorState {
  return trace.reduce((state, entered) => stepMonitor(compiled, state, entered), initialMonitorState(compiled));
}

/** Brute force: some continuation of at most `depth` graph moves, then closing, satisfies the oracle. */
function satisfiable(constraint: TemporalConstraint, trace: string[], graph: TransitionGraph, depth: number): boolean {
  if (evaluateConstraint(constraint, trace, { closed: true }) === 'satisfied') return true;
  if (depth === 0 || evaluateConstraint(constraint, trace) === 'violated') return false;
  const current = trace[trace.length - 1]!;
  return graph.successors(current).some((next) => next !== current && satisfiable(constraint, [...trace, next], graph, depth - 1));
}

/** Each state lists some successors (possibly none, meaning any; possibly itself). */
const graphArbitrary = fc
  .tuple(...ALPHABET.map(() => fc.subarray([...ALPHABET])))
  .map((lists) => createTransitionGraph({ states: ALPHABET, transitions: lists.flatMap((tos, index) => tos.map((to) => ({ from: ALPHABET[index]!, to }))) }));

const support = createTransitionGraph({
  states: ['greeting', 'identify_issue', 'resolution', 'closed_account'],
  transitions: [
    { from: 'greeting', to: 'identify_issue' },
    { from: 'identify_issue', to: 'resolution' },
    { from: 'identify_issue', to: 'closed_account' },
    { from: 'closed_account', to: 'closed_account' },
    { from: 'resolution', to: 'greeting' },
  ],
});

describe('isDoomed', () => {
  const eventually = compileConstraint({ name: 'resolve', type: 'eventually', target: 'resolution' });

  it('flags eventually(resolution) once resolution is unreachable', () => {
    expect(isDoomed(eventually, run(eventually, ['greeting', 'identify_issue', 'closed_account']), 'closed_account', support)).toBe(true);
    expect(isDoomed(eventually, run(eventually, ['greeting', 'identify_issue']), 'identify_issue', support)).toBe(false);
  });

  it('never flags a decided verdict', () => {
    const never = compileConstraint({ name: 'no-close', type: 'never', target: 'closed_account' });
    expect(isDoomed(never, run(never, ['greeting', 'identify_issue', 'closed_account']), 'closed_account', support)).toBe(false);
  });

  it('flags a response whose answer is out of reach, not one that can still be answered', () => {
    const response = compileConstraint({ name: 'answer', type: 'response', trigger: 'identify_issue', target: 'resolution' });
    expect(isDoomed(response, run(response, ['greeting', 'identify_issue']), 'identify_issue', support)).toBe(false);
    expect(isDoomed(response, run(response, ['greeting', 'identify_issue', 'closed_account']), 'closed_account', support)).toBe(true);
  });

  it('treats a state without listed transitions as allowing any next state', () => {
    const graph = createTransitionGraph({ states: ['a', 'b', 'goal'], transitions: [{ from: 'a', to: 'b' }] });
    const compiled = compileConstraint({ name: 'g', type: 'eventually', target: 'goal' });
    expect(isDoomed(compiled, run(compiled, ['a', 'b']), 'b', graph)).toBe(false);
  });

  it('agrees with a brute-force search of bounded continuations', () => {
    // The product of a monitor (two pending automaton states: an obligation open or not) and four workflow states
    // has eight configurations, so a shortest satisfying continuation has at most eight moves.
    fc.assert(
      fc.property(constraintArbitrary, graphArbitrary, fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 6 }), (constraint, graph, trace) => {
        const compiled = compileConstraint(constraint);
        const state = run(compiled, trace);
        const current = trace[trace.length - 1]!;
        const doomed = isDoomed(compiled, state, current, graph);
        if (state.verdict !== 'pending') expect(doomed).toBe(false);
        else expect(doomed).toBe(!satisfiable(constraint, trace, graph, 2 * ALPHABET.length));
      }),
      { numRuns: 1000 },
    );
  });

  it('memoises per constraint, graph and configuration', () => {
    let calls = 0;
    const inner = createTransitionGraph({ states: ['a', 'b', 'c'], transitions: [{ from: 'a', to: 'b' }, { from: 'b', to: 'a' }] });
    const graph: TransitionGraph = { states: inner.states, successors: (state) => (calls++, inner.successors(state)) };
    const compiled = compileConstraint({ name: 'c', type: 'eventually', target: 'c' });
    expect(isDoomed(compiled, run(compiled, ['a']), 'a', graph)).toBe(true);
    const afterFirst = calls;
    expect(isDoomed(compiled, run(compiled, ['b', 'a']), 'a', graph)).toBe(true);
    expect(calls).toBe(afterFirst);
  });
});

describe('linter helpers', () => {
  it('canEverFire: a trigger, a never target, an always exception must be reachable', () => {
    const check = (constraint: TemporalConstraint) => canEverFire(compileConstraint(constraint), support, 'greeting');
    expect(check({ name: 'p', type: 'precedence', trigger: 'closed_account', target: 'identify_issue' })).toBe(true);
    expect(check({ name: 'p', type: 'precedence', trigger: 'typo_state', target: 'identify_issue' })).toBe(false);
    expect(check({ name: 'n', type: 'never', target: 'typo_state' })).toBe(false);
    expect(check({ name: 'a', type: 'always', condition: '*' })).toBe(false);
    expect(check({ name: 'a', type: 'always', condition: '!resolution' })).toBe(true);
    expect(check({ name: 'n', type: 'next', target: 'identify_issue' })).toBe(true);
  });

  it('canEverBeSatisfied: some path from the initial state satisfies it', () => {
    const check = (constraint: TemporalConstraint) => canEverBeSatisfied(compileConstraint(constraint), support, 'greeting');
    expect(check({ name: 'e', type: 'eventually', target: 'resolution' })).toBe(true);
    expect(check({ name: 'e', type: 'eventually', target: 'typo_state' })).toBe(false);
    expect(check({ name: 'n', type: 'next', target: 'resolution' })).toBe(false);
    expect(check({ name: 'n', type: 'next', target: 'identify_issue' })).toBe(true);
    expect(check({ name: 'a', type: 'always', condition: '!greeting' })).toBe(false);
    expect(check({ name: 'u', type: 'until', trigger: 'greeting', target: 'resolution' })).toBe(false);
  });

  it('reachableStates includes the start', () => {
    expect(reachableStates(support, 'closed_account')).toEqual(['closed_account']);
    expect(new Set(reachableStates(support, 'greeting'))).toEqual(new Set(support.states));
  });
});

describe('unconstrained states (issue 13: N states with no transitions listed cost N x N)', () => {
  /** The same graph without `isUnconstrained`: the searches then visit every successor one by one, as they used to. */
  const naive = (graph: TransitionGraph): TransitionGraph => ({ states: graph.states, successors: (state) => graph.successors(state) });

  it('give the answers of the naive search on random graphs', () => {
    fc.assert(
      fc.property(constraintArbitrary, graphArbitrary, fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 6 }), (constraint, graph, trace) => {
        const compiled = compileConstraint(constraint);
        const plain = naive(graph);
        const state = run(compiled, trace);
        const current = trace[trace.length - 1]!;
        expect(isDoomed(compiled, state, current, graph)).toBe(isDoomed(compiled, state, current, plain));
        for (const start of ALPHABET) {
          expect(reachableStates(graph, start)).toEqual(reachableStates(plain, start));
          expect(canEverFire(compiled, graph, start)).toBe(canEverFire(compiled, plain, start));
          expect(canEverBeSatisfied(compiled, graph, start)).toBe(canEverBeSatisfied(compiled, plain, start));
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('give the answers of the naive search when most states are named by no selector', () => {
    // The constraints name only a-d, so e-g (when they list nothing) are searched as one node.
    const wide = [...ALPHABET, 'e', 'f', 'g'];
    const wideGraph = fc
      .tuple(...wide.map(() => fc.oneof(fc.constant([]), fc.subarray(wide))))
      .map((lists) => createTransitionGraph({ states: wide, transitions: lists.flatMap((tos, index) => tos.map((to) => ({ from: wide[index]!, to }))) }));
    fc.assert(
      fc.property(constraintArbitrary, wideGraph, fc.array(fc.constantFrom(...wide, 'unknown'), { minLength: 1, maxLength: 6 }), (constraint, graph, trace) => {
        const compiled = compileConstraint(constraint);
        const state = run(compiled, trace);
        const current = trace[trace.length - 1]!;
        expect(isDoomed(compiled, state, current, graph)).toBe(isDoomed(compiled, state, current, naive(graph)));
        expect(canEverBeSatisfied(compiled, graph, current)).toBe(canEverBeSatisfied(compiled, naive(graph), current));
        expect(canEverFire(compiled, graph, current)).toBe(canEverFire(compiled, naive(graph), current));
      }),
      { numRuns: 2000 },
    );
  });

  it('visit O(states) successors, not O(states^2), when every state is unconstrained', () => {
    const size = 2_000;
    const states = Array.from({ length: size }, (_, index) => `s${index}`);
    const inner = createTransitionGraph({ states, transitions: [] });
    let visited = 0;
    // Counts every state handed to a search, whether through `successors` or by reading all of `states`.
    const graph: TransitionGraph = {
      get states() {
        visited += size;
        return inner.states;
      },
      successors: (state) => {
        const next = inner.successors(state);
        visited += next.length;
        return next;
      },
      isUnconstrained: (state) => inner.isUnconstrained!(state),
    };
    expect(reachableStates(graph, 's0')).toHaveLength(size);
    expect(visited).toBeLessThanOrEqual(2 * size);

    visited = 0;
    const unreachable = compileConstraint({ name: 'e', type: 'eventually', target: 'elsewhere' });
    expect(canEverBeSatisfied(unreachable, graph, 's0')).toBe(false); // a full search: nothing satisfies it
    const response = compileConstraint({ name: 'r', type: 'response', trigger: 's1', target: 'elsewhere' });
    expect(isDoomed(response, run(response, ['s0', 's1']), 's1', graph)).toBe(true);
    expect(visited).toBeLessThanOrEqual(8 * size);
  });
});
