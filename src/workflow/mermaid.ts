import { describeSelector } from '../temporal/index.js';
import { mermaidIds } from './mermaid-ids.js';
import type { ConstraintDefinition, TransitionGuardDefinition } from './types.js';
import type { Workflow } from './workflow.js';

/**
 * Renders a workflow as a Mermaid state diagram: states, transitions (with guards as labels), the initial and
 * terminal states, and each constraint as a note on the state it is about. A state whose name is not a usable Mermaid
 * id (a keyword such as `note` or `state`, or a name with `-`, `.` or spaces) is drawn under a readable id of its own
 * (`note_`, `a_b_2`; see `mermaidIds`) and labelled with its name, so distinct states stay distinct nodes.
 * @example
 * console.log(workflowToMermaid(await loadWorkflow('support.yaml')));
 */
export function workflowToMermaid(workflow: Workflow): string {
  const { definition } = workflow;
  // Transitions may name undeclared states when the workflow was loaded with `strict: false`: they are drawn too.
  const names = [...new Set([...workflow.stateNames, ...definition.transitions.flatMap((transition) => [transition.from, transition.to])])];
  const ids = mermaidIds(names);
  const id = (name: string) => ids.get(name) ?? name;
  const descriptions = new Map(definition.states.map((state) => [state.name, state.description]));
  const lines = ['stateDiagram-v2', `  %% ${label(definition.name)} ${label(definition.version)}`];
  for (const name of names) {
    const description = descriptions.get(name);
    // A quoted label keeps the state's name visible above its description (`id : text` would replace the name).
    if (description) lines.push(`  state "${label(name)}<br/><i>${label(description)}</i>" as ${id(name)}`);
    else if (id(name) !== name) lines.push(`  state "${label(name)}" as ${id(name)}`);
  }
  lines.push(`  [*] --> ${id(workflow.initialState)}`);
  for (const transition of definition.transitions) {
    const guard = transition.guard ? ` : ${transitionLabel(describeGuard(transition.guard))}` : '';
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
  const rules: Record<string, () => string> = {
    eventually: () => `eventually ${target}`,
    never: () => `never ${target}`,
    always: () => `always ${constraint.condition === undefined ? '' : describeSelector(constraint.condition)}`,
    precedence: () => `${target}${constraint.grounded ? ` stating ${constraint.grounded.join(', ')}` : ''} before ${constraint.each ? 'each ' : ''}${trigger}`,
    response: () => `after ${trigger}, eventually ${target}`,
    until: () => `once ${trigger}, stay until ${target}`,
    next: () => (trigger ? `right after ${trigger}, ${target}` : `second state is ${target}`),
  };
  // A registered type: its name and options, as written.
  return Object.hasOwn(rules, constraint.type) ? rules[constraint.type]!() : `${constraint.type} ${JSON.stringify(constraint.options ?? {})}`;
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

/**
 * Labels are one line. A double quote would end a quoted label and `<` would open an HTML tag. Mermaid reads `#58;`
 * as an entity code and draws the character, so a `#` that would start one is itself written as a code (`#35;`).
 */
function label(text: string, coded: RegExp = /#(?=\w+;)/g): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/"/g, "'")
    .replace(/</g, '&lt;')
    .replace(coded, (character) => `#${character.charCodeAt(0)};`);
}

/** A transition's label: Mermaid's lexer ends one at `;` or `::`, so `:` and `;` are written as codes, and every `#`. */
function transitionLabel(text: string): string {
  return label(text, /[#:;]/g);
}
