import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileConstraint, createTransitionGraph, evaluateConstraint, findCounterexample, type TemporalConstraint, type TransitionGraph } from '../../src/temporal/index.js';
import { findWorkflowCounterexamples, validateWorkflow } from '../../src/workflow/index.js';
import { yaml } from '../workflow/helpers.js';
import { ALPHABET, constraintArbitrary } from './arbitraries.js';

/** Brute force: every path from `start` of at most `depth` states, in order of length; the first that violates. */
function shortestByEnumeration(constraint: TemporalConstraint, graph: TransitionGraph, start: string, canEnd: (state: string) => boolean, depth: number): string[] | undefined {
  let frontier: string[][] = [[start]];
  for (let length = 1; length <= depth && frontier.length > 0; length++) {
    for (const path of frontier) {
      if (evaluateConstraint(constraint, path) === 'violated') return path;
      if (canEnd(path.at(-1)!) && evaluateConstraint(constraint, path, { closed: true }) === 'violated') return path;
    }
    frontier = frontier.flatMap((path) => graph.successors(path.at(-1)!).filter((next) => next !== path.at(-1)).map((next) => [...path, next]));
  }
  return undefined;
}

const graphArbitrary = fc
  .record({
    edges: fc.array(fc.tuple(fc.constantFrom(...ALPHABET), fc.constantFrom(...ALPHABET, 'e')), { maxLength: 10 }),
    ends: fc.subarray([...ALPHABET, 'e']),
  })
  .map(({ edges, ends }) => ({ graph: createTransitionGraph({ states: [...ALPHABET, 'e'], transitions: edges.map(([from, to]) => ({ from, to })) }), ends: new Set(ends) }));

describe('findCounterexample', () => {
  it('finds the shortest path that enters a forbidden state', () => {
    const graph = createTransitionGraph({
      states: ['greeting', 'verify', 'refund'],
      transitions: [
        { from: 'greeting', to: 'verify' },
        { from: 'verify', to: 'refund' },
        { from: 'greeting', to: 'refund' },
        { from: 'refund', to: 'refund' },
      ],
    });
    const compiled = compileConstraint({ name: 'verify_first', type: 'precedence', trigger: 'refund', target: 'verify' });
    const result = findCounterexample(compiled, graph, 'greeting');
    expect(result).toEqual({ kind: 'found', counterexample: { path: ['greeting', 'refund'], violation: { step: 2, state: 'refund', atClose: false } } });
  });

  it('reports an open obligation only where a session may end', () => {
    const graph = createTransitionGraph({ states: ['a', 'b', 'c'], transitions: [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }, { from: 'c', to: 'c' }] });
    const compiled = compileConstraint({ name: 'reach_c', type: 'eventually', target: 'c' });
    expect(findCounterexample(compiled, graph, 'a').kind).toBe('none');
    expect(findCounterexample(compiled, graph, 'a', { canEnd: (state) => state === 'b' })).toMatchObject({ kind: 'found', counterexample: { path: ['a', 'b'], violation: { atClose: true } } });
  });

  it('gives up at its budget and says how far it went', () => {
    const states = Array.from({ length: 50 }, (_, index) => `s${index}`);
    const graph = createTransitionGraph({ states, transitions: [] }); // every state may follow every other
    const compiled = compileConstraint({ name: 'never_end', type: 'never', target: 'nowhere' });
    expect(findCounterexample(compiled, graph, 's0', { budget: 10 })).toEqual({ kind: 'budget', visited: 10 });
  });

  it('agrees with brute-force enumeration of paths up to length 6 on random graphs (property)', () => {
    fc.assert(
      fc.property(graphArbitrary, constraintArbitrary, fc.constantFrom(...ALPHABET), ({ graph, ends }, constraint, start) => {
        const canEnd = (state: string) => ends.has(state);
        const result = findCounterexample(compileConstraint(constraint), graph, start, { canEnd });
        const brute = shortestByEnumeration(constraint, graph, start, canEnd, 6);
        if (result.kind === 'found') {
          const { path, violation } = result.counterexample;
          // The path is allowed by the graph and violates the constraint as the oracle reads it.
          path.slice(1).forEach((state, index) => expect(graph.successors(path[index]!)).toContain(state));
          expect(evaluateConstraint(constraint, path, { closed: violation.atClose })).toBe('violated');
          if (path.length <= 6) expect(brute?.length).toBe(path.length);
          else expect(brute).toBeUndefined();
        } else {
          expect(result.kind).toBe('none');
          expect(brute).toBeUndefined();
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('findWorkflowCounterexamples', () => {
  const LOOSE = yaml(
    'name: loose-refunds',
    'states:',
    '  - { name: greeting, initial: true, classification: { patterns: ["hello"] } }',
    '  - { name: verify_identity, classification: { tool_calls: [verify] } }',
    '  - { name: account_action, classification: { tool_calls: [refund] } }',
    '  - { name: done, terminal: true, classification: { patterns: ["bye"] } }',
    'transitions:',
    '  - { from: greeting, to: verify_identity }',
    '  - { from: greeting, to: account_action }',
    '  - { from: verify_identity, to: account_action }',
    '  - { from: account_action, to: done }',
    'constraints:',
    '  - { name: verify_before_refund, type: precedence, trigger: account_action, target: verify_identity }',
    '  - { name: finish, type: eventually, target: done }',
  );

  it('names the constraint and the shortest path that breaks it, at the constraint line', () => {
    const { workflow } = validateWorkflow(LOOSE, { source: 'loose.yaml' });
    const { diagnostics, counterexamples } = findWorkflowCounterexamples(workflow!);
    expect(counterexamples).toEqual([{ constraint: 'verify_before_refund', index: 0, path: ['greeting', 'account_action'], violation: { step: 2, state: 'account_action', atClose: false } }]);
    expect(diagnostics).toMatchObject([
      { severity: 'warning', code: 'constraint-breakable', path: 'constraints[0]', source: 'loose.yaml', line: 13, message: 'the workflow lets an agent break `verify_before_refund`: greeting -> account_action' },
    ]);
    expect(findWorkflowCounterexamples(workflow!, { strict: true }).diagnostics[0]!.severity).toBe('error');
  });
});
