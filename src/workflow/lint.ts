import type { Diagnostic } from '../diagnostics/index.js';
import { canEverBeSatisfied, canEverFire, describeSelector, reachableStates, selectorNames } from '../temporal/index.js';
import { compiledConstraints } from './constraints.js';
import { seenGraphs } from './seen-graph.js';
import type { Workflow } from './workflow.js';

/**
 * Lints a valid workflow for mistakes that load fine but make it misbehave: states the agent
 * can never reach, states nothing can classify, constraints that can never fire or never be satisfied given the
 * transition graph. All findings are warnings.
 */
export function lintWorkflow(workflow: Workflow): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const warn = (code: string, path: string, message: string, hint?: string) => {
    const position = workflow.positionOf(path);
    diagnostics.push({ severity: 'warning', code, path, message, ...(hint ? { hint } : {}), ...sourceOf(workflow), ...(position ?? {}) });
  };

  // A state named only to be forbidden (the target of a `never`) is meant to be unreachable: entering it is the
  // deviation the constraint catches, so it gets no unreachable-state warning.
  const forbidden = new Set(
    workflow.definition.constraints.filter((constraint) => constraint.type === 'never').flatMap((constraint) => selectorNames(constraint.target ?? [])),
  );
  const reachable = new Set(reachableStates(workflow, workflow.initialState));
  workflow.definition.states.forEach((state, index) => {
    if (!reachable.has(state.name) && !forbidden.has(state.name)) {
      warn('unreachable-state', `states[${index}]`, `state '${state.name}' cannot be reached from the initial state '${workflow.initialState}'`, 'add a transition into it, or remove it');
    }
    const { toolCalls, patterns, exemplars } = state.classification;
    if (!state.initial && toolCalls.length + patterns.length + exemplars.length === 0) {
      warn('unclassifiable-state', `states[${index}]`, `state '${state.name}' has no tool_calls, patterns or exemplars, so no response is ever classified into it`, 'add a classification');
    }
  });

  compiledConstraints(workflow).forEach((compiled, index) => {
    const { name, type, trigger } = compiled.constraint;
    const path = `constraints[${index}]`;
    // The moves as the constraint's monitor sees them: transparent states it does not name are no step.
    const graph = seenGraphs(workflow)[index]!;
    if (!canEverBeSatisfied(compiled, graph, workflow.initialState)) {
      warn('constraint-unsatisfiable', path, `constraint '${name}' can never be satisfied by a session that follows the transitions`, 'check its states against the transitions');
    } else if (trigger !== undefined && !canEverFire(compiled, graph, workflow.initialState)) {
      warn('constraint-never-fires', path, `constraint '${name}' can never fire: its trigger ${describeSelector(trigger, { quoted: true })} cannot be reached from '${workflow.initialState}'`, 'check the trigger against the transitions');
    } else if (type === 'always' && !canEverFire(compiled, graph, workflow.initialState)) {
      warn('constraint-never-fires', path, `constraint '${name}' can never fire: every reachable state is in its condition`);
    }
  });
  return diagnostics;
}

function sourceOf(workflow: Workflow): { source?: string } {
  return workflow.source === undefined ? {} : { source: workflow.source };
}
