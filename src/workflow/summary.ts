import { describeRule } from './mermaid.js';
import type { Workflow } from './workflow.js';

/** What a workflow holds, as plain JSON: what `panoptes info` prints and the proxy's `GET /info` reports. */
export interface WorkflowSummary {
  name: string;
  version: string;
  description?: string;
  initialState: string;
  states: Array<{ name: string; initial?: true; terminal?: true; toolCalls: string[]; patterns: number; exemplars: number }>;
  transitions: Array<{ from: string; to: string; guarded?: true }>;
  constraints: Array<{ name: string; type: string; severity: string; rule: string; intervention?: string }>;
  interventions: Array<{ name: string; strategy: string; maxApplications: number }>;
  onDeviation: { reaction: string; intervention?: string };
}

/**
 * A workflow's states, transitions, constraints and interventions in short, for people and dashboards.
 * @example
 * workflowSummary(await loadWorkflow('support.yaml')).constraints[0]; // { name: 'verify_first', type: 'precedence', ... }
 */
export function workflowSummary(workflow: Workflow): WorkflowSummary {
  const { definition } = workflow;
  return {
    name: definition.name,
    version: definition.version,
    ...(definition.description === undefined ? {} : { description: definition.description }),
    initialState: definition.initialState,
    states: definition.states.map((state) => ({
      name: state.name,
      ...(state.initial ? { initial: true as const } : {}),
      ...(state.terminal ? { terminal: true as const } : {}),
      toolCalls: [...state.classification.toolCalls],
      patterns: state.classification.patterns.length,
      exemplars: state.classification.exemplars.length,
    })),
    transitions: definition.transitions.map((transition) => ({ from: transition.from, to: transition.to, ...(transition.guard ? { guarded: true as const } : {}) })),
    constraints: definition.constraints.map((constraint) => ({
      name: constraint.name,
      type: constraint.type,
      severity: constraint.severity,
      rule: describeRule(constraint),
      ...(constraint.intervention === undefined ? {} : { intervention: constraint.intervention }),
    })),
    interventions: Object.values(definition.interventions).map((intervention) => ({ name: intervention.name, strategy: intervention.strategy, maxApplications: intervention.maxApplications })),
    onDeviation: { reaction: definition.onDeviation.reaction, ...(definition.onDeviation.intervention === undefined ? {} : { intervention: definition.onDeviation.intervention }) },
  };
}
