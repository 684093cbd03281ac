import type { Diagnostic } from '../diagnostics/index.js';
import { canEverBeSatisfied, findCounterexample, type Counterexample } from '../temporal/index.js';
import { compiledConstraints } from './constraints.js';
import { seenGraphs } from './seen-graph.js';
import type { Workflow } from './workflow.js';

/** Options of `findWorkflowCounterexamples`. */
export interface WorkflowCounterexampleOptions {
  /** Report a breakable constraint as an error rather than a warning (`panoptes validate --strict-paths`). @default false */
  strict?: boolean;
  /** Most configurations each constraint's search visits. @default 1_000_000 */
  budget?: number;
}

/** One constraint the workflow's own transitions let an agent break, with the shortest path that does. */
export interface ConstraintCounterexample extends Counterexample {
  constraint: string;
  /** Index in `constraints[]`. */
  index: number;
}

/**
 * For each constraint, the shortest path the workflow's transitions allow that violates it,
 * as diagnostics (`constraint-breakable`; `counterexample-search-budget` when a search gave up) and as data. A
 * session may end only in a terminal state or a state with no way out, so `eventually` and `response` are reported
 * only when a path reaches such a state with the obligation still open. Constraints no path can satisfy are left to
 * `lintWorkflow` (`constraint-unsatisfiable`).
 * @example
 * const { diagnostics } = findWorkflowCounterexamples(workflow);
 * // "the workflow lets an agent break `verify_before_refund`: greeting -> account_action"
 */
export function findWorkflowCounterexamples(
  workflow: Workflow,
  { strict = false, budget }: WorkflowCounterexampleOptions = {},
): { diagnostics: Diagnostic[]; counterexamples: ConstraintCounterexample[] } {
  const diagnostics: Diagnostic[] = [];
  const counterexamples: ConstraintCounterexample[] = [];
  compiledConstraints(workflow).forEach((compiled, index) => {
    // The moves as the constraint's monitor sees them: a transparent state it does not name is no step on a path.
    const graph = seenGraphs(workflow)[index]!;
    const canEnd = (state: string) => workflow.state(state)?.terminal === true || graph.successors(state).every((next) => next === state);
    if (!canEverBeSatisfied(compiled, graph, workflow.initialState)) return;
    const path = `constraints[${index}]`;
    const position = workflow.positionOf(path) ?? {};
    const source = workflow.source === undefined ? {} : { source: workflow.source };
    const result = findCounterexample(compiled, graph, workflow.initialState, { canEnd, ...(budget === undefined ? {} : { budget }) });
    if (result.kind === 'budget') {
      diagnostics.push({ severity: 'warning', code: 'counterexample-search-budget', path, message: `the search for a path that breaks '${compiled.constraint.name}' stopped after ${result.visited} configurations`, hint: 'the workflow is too large to search exhaustively; split it or list transitions for its unconstrained states', ...source, ...position });
      return;
    }
    if (result.kind === 'none') return;
    const { counterexample } = result;
    counterexamples.push({ constraint: compiled.constraint.name, index, ...counterexample });
    const ending = counterexample.violation.atClose ? ', and the session ends there' : '';
    diagnostics.push({
      severity: strict ? 'error' : 'warning',
      code: 'constraint-breakable',
      path,
      message: `the workflow lets an agent break \`${compiled.constraint.name}\`: ${counterexample.path.join(' -> ')}${ending}`,
      hint: 'remove the transitions on this path that the constraint forbids, or accept that the monitor must catch it at run time',
      ...source,
      ...position,
    });
  });
  return { diagnostics, counterexamples };
}
