import { describeSelector } from '../temporal/index.js';
import type { ConstraintDefinition, TransitionGuardDefinition } from './types.js';
import type { Workflow } from './workflow.js';

/**
 * Renders a workflow as a Mermaid state diagram: states, transitions (with guards as labels), the initial and
 * terminal states, and each constraint as a note on the state it is about.
 * @example
 * console.log(workflowToMermaid(await loadWorkflow('support.yaml')));
 */
export function workflowToMermaid(workflow: Workflow): string {
  const { definition } = workflow;
  const lines = ['stateDiagram-v2', `  %% ${definition.name} ${definition.version}`];
  for (const state of definition.states) {
    // A quoted label keeps the state's name visible above its description (`id : text` would replace the name).
    if (state.description) lines.push(`  state "${label(state.name)}<br/><i>${label(state.description)}</i>" as ${id(state.name)}`);
  }
  lines.push(`  [*] --> ${id(workflow.initialState)}`);
  for (const transition of definition.transitions) {
    const guard = transition.guard ? ` : ${label(describeGuard(transition.guard))}` : '';
    lines.push(`  ${id(transition.from)} --> ${id(transition.to)}${guard}`);
  }
  for (const state of definition.states) {
    if (state.terminal) lines.push(`  ${id(state.name)} --> [*]`);
  }
  for (const constraint of definition.constraints) {
    lines.push(`  note right of ${id(anchorState(workflow, constraint))}`, `    ${label(describeConstraint(constraint))}`, '  end note');
  }
  return `${lines.join('\n')}\n`;
}

/** `precedence verify_before_refund (critical): verify_identity before process_refund`. */
export function describeConstraint(constraint: ConstraintDefinition): string {
  return `${constraint.type} ${constraint.name} (${constraint.severity}): ${describeRule(constraint)}`;
}

/** What a constraint asks, in a few words: `verify_identity before process_refund`, `never share_internal_info`. */
export function describeRule(constraint: ConstraintDefinition): string {
  const trigger = constraint.trigger === undefined ? '' : describeSelector(constraint.trigger);
  const target = constraint.target === undefined ? '' : describeSelector(constraint.target);
  return {
    eventually: () => `eventually ${target}`,
    never: () => `never ${target}`,
    always: () => `always ${constraint.condition === undefined ? '' : describeSelector(constraint.condition)}`,
    precedence: () => `${target} before ${trigger}`,
    response: () => `after ${trigger}, eventually ${target}`,
    until: () => `once ${trigger}, stay until ${target}`,
    next: () => (trigger ? `right after ${trigger}, ${target}` : `second state is ${target}`),
  }[constraint.type]();
}

/** The state a constraint's note sits on: its trigger, else its target or condition, else the initial state. */
function anchorState(workflow: Workflow, constraint: ConstraintDefinition): string {
  for (const selector of [constraint.trigger, constraint.target, constraint.condition]) {
    const names = selector === undefined ? [] : typeof selector === 'string' ? [selector] : selector;
    const known = names.find((name) => workflow.hasState(name));
    if (known) return known;
  }
  return workflow.initialState;
}

function describeGuard(guard: TransitionGuardDefinition): string {
  const parts: string[] = [];
  if (guard.minConfidence !== undefined) parts.push(`confidence >= ${guard.minConfidence}`);
  if (guard.requiredMetadata?.length) parts.push(`has ${guard.requiredMetadata.join(', ')}`);
  if (guard.expression) parts.push(guard.expression);
  return parts.join(' and ');
}

/** Mermaid state ids may not contain spaces, dashes or dots. */
function id(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, '_');
}

/** Labels are one line; a double quote would end a quoted label, and `<` would open an HTML tag. */
function label(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/"/g, "'").replace(/</g, '&lt;');
}
