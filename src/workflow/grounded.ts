import { unstatedArguments } from '../grounding/index.js';
import type { CompiledConstraint, MonitorState } from '../temporal/index.js';
import type { WorkflowSnapshot } from './snapshot.js';
import type { ConstraintDefinition, WorkflowDefinition } from './types.js';

// The message a yes answered is kept bounded: a restatement is a few hundred characters.
const MAX_ANSWERED = 16_000;

/**
 * The snapshot with the message the user answered on entering `state` (a state recognised in the user's turn), for
 * `grounded` constraints: the latest entry's message is what that yes confirmed.
 */
export function withAnswered(snapshot: WorkflowSnapshot, state: string, answered: string): WorkflowSnapshot {
  const text = answered.length > MAX_ANSWERED ? answered.slice(0, MAX_ANSWERED) : answered;
  if (snapshot.answered?.[state] === text) return snapshot;
  return { ...snapshot, answered: { ...snapshot.answered, [state]: text } };
}

/**
 * For a `grounded` constraint whose trigger the call enters: the named arguments of the call that the message its
 * fresh target (the user's latest yes since the previous trigger) answered did not state; empty when it stated them
 * all. `undefined` when the constraint is not grounded, `to` is not its trigger, or there is no fresh target (the
 * monitor itself then reports the missing yes). A call whose arguments are not known has stated none of them.
 */
export function unstatedForCall(snapshot: WorkflowSnapshot, compiled: CompiledConstraint, monitor: MonitorState, to: string, args: Readonly<Record<string, unknown>> | undefined): string[] | undefined {
  const grounded = (compiled.constraint as ConstraintDefinition).grounded;
  if (grounded === undefined || monitor.verdict !== 'pending' || monitor.open === undefined || compiled.trigger?.matches(to) !== true) return undefined;
  return unstatedArguments(grounded, args ?? {}, snapshot.answered?.[monitor.open.state] ?? '');
}

/**
 * The monitor a grounded trigger is stepped from: a yes that answered a message not stating the call's arguments is
 * no yes to this call, so the fresh target is taken away and the `each` precedence reports the call as unconfirmed.
 * Equivalent to stepping the trace with that target removed (the property tests check it).
 */
export function withoutFreshTarget(monitor: MonitorState): MonitorState {
  if (monitor.open === undefined) return monitor;
  const { open: _open, ...rest } = monitor;
  return rest;
}

/** The sentence added to a grounded constraint's violation: which arguments the confirmed message left out. */
export function unstatedNote(unstated: readonly string[], target: string): string {
  return `The user's yes ('${target}') answered a message that did not state ${unstated.join(', ')} of this call; restate the call with them and ask again.`;
}

/**
 * The sentence added to a grounded constraint's violation when the call's arguments are not known (a move previewed
 * before a call proposes it): the yes it lacks must also have answered a message stating the named arguments.
 */
export function groundedNote(constraint: ConstraintDefinition): string | undefined {
  if (constraint.grounded === undefined) return undefined;
  return `The user's yes ('${namesOf(constraint.target).join("' or '")}') must answer a message that states ${constraint.grounded.join(', ')} of the call.`;
}

interface GroundedStates {
  /** Trigger state to the arguments its calls must have had stated (the union over its grounded constraints). */
  triggers: ReadonlyMap<string, readonly string[]>;
  /** The target states of grounded constraints: entering one keeps the message the user answered. */
  targets: ReadonlySet<string>;
}

const cache = new WeakMap<WorkflowDefinition, GroundedStates>();
const namesOf = (selector: ConstraintDefinition['trigger']) => (selector === undefined ? [] : typeof selector === 'string' ? [selector] : [...selector]);

function groundedStates(definition: WorkflowDefinition): GroundedStates {
  let found = cache.get(definition);
  if (!found) {
    const triggers = new Map<string, string[]>();
    const targets = new Set<string>();
    for (const constraint of definition.constraints) {
      if (constraint.grounded === undefined) continue;
      for (const state of namesOf(constraint.trigger)) triggers.set(state, [...new Set([...(triggers.get(state) ?? []), ...constraint.grounded])]);
      for (const state of namesOf(constraint.target)) targets.add(state);
    }
    found = { triggers, targets };
    cache.set(definition, found);
  }
  return found;
}

/**
 * The arguments of a call into `state` that grounded constraints read (the rest are not kept), or `undefined` when
 * none reads them: what a monitor stores with a call that waits to enter.
 */
export function groundedArgumentsOf(definition: WorkflowDefinition, state: string, args: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  const names = groundedStates(definition).triggers.get(state);
  if (names === undefined) return undefined;
  return Object.fromEntries(names.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
}

/** The arguments of a call into `state` that grounded constraints read, or `undefined` when none reads them. */
export function groundedArgumentNames(definition: WorkflowDefinition, state: string): readonly string[] | undefined {
  return groundedStates(definition).triggers.get(state);
}

/** Whether entering `state` needs the message the user answered (it is the target of a grounded constraint). */
export function keepsAnswered(definition: WorkflowDefinition, state: string): boolean {
  return groundedStates(definition).targets.has(state);
}
