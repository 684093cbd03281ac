import type { WorkflowSummary } from '../../workflow/index.js';

/** A workflow's summary as lines for a terminal. */
export function renderWorkflowInfo(summary: WorkflowSummary, source?: string): string[] {
  const stateName = (state: WorkflowSummary['states'][number]) => `${state.name}${state.initial ? ' (initial)' : ''}${state.terminal ? ' (terminal)' : ''}`;
  const width = Math.max(0, ...summary.constraints.map((constraint) => constraint.name.length));
  return [
    `workflow ${summary.name} ${summary.version}${source ? `  (${source})` : ''}`,
    ...(summary.description ? [`  ${summary.description}`] : []),
    `states (${summary.states.length}): ${summary.states.map(stateName).join(', ')}`,
    `transitions (${summary.transitions.length})${summary.transitions.length === 0 ? ': none listed, any state may follow any' : `: ${summary.transitions.map((transition) => `${transition.from} -> ${transition.to}${transition.guarded ? ' [guarded]' : ''}`).join(', ')}`}`,
    `constraints (${summary.constraints.length}):`,
    ...summary.constraints.map((constraint) => `  ${constraint.name.padEnd(width)}  ${constraint.severity.padEnd(8)}  ${constraint.rule}${constraint.intervention ? `  -> ${constraint.intervention}` : ''}`),
    `interventions (${summary.interventions.length}): ${summary.interventions.length === 0 ? 'none' : summary.interventions.map((intervention) => `${intervention.name} (${intervention.strategy}, up to ${intervention.maxApplications}x)`).join(', ')}`,
    `on deviation: ${summary.onDeviation.reaction}${summary.onDeviation.intervention ? ` with ${summary.onDeviation.intervention}` : ''}`,
  ];
}
