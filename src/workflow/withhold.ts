import type { WorkflowSnapshot } from './snapshot.js';
import { previewEnter } from './transition.js';
import type { ConstraintDefinition } from './types.js';
import type { Workflow } from './workflow.js';

/**
 * What the user is told instead of a withheld response when neither the constraint nor its intervention has a
 * `user_message`. It names no rule, state or instruction: the user learns only that this answer is not coming.
 */
export const DEFAULT_USER_MESSAGE = "I'm sorry, I can't help with that. Is there anything else I can do for you?";

/** Why a response must not reach the user, and what the user gets instead. */
export interface WithholdDecision {
  /** The state the response was classified as (or matched), whose entry would break the constraints. */
  state: string;
  /** The constraints that withhold it: critical ones, and those whose intervention is a `block:`. */
  constraints: string[];
  /** The text that replaces the response: the first constraint's `user_message`, its intervention's, or the default. */
  userMessage: string;
  /** What the response would have broken, for developers and logs; never shown to the user. */
  reason: string;
}

/**
 * Whether a violation of `constraint` keeps the response that made it from the user: the constraint is critical (a
 * response breaking it would block the next call), or its intervention is a `block:`.
 */
export function withholds(workflow: Workflow, constraint: ConstraintDefinition): boolean {
  if (constraint.severity === 'critical') return true;
  return constraint.intervention !== undefined && workflow.intervention(constraint.intervention)?.strategy === 'hard-block';
}

const withholding = new WeakMap<Workflow, boolean>();

/** Whether any constraint of the workflow withholds: without one, nothing is ever withheld, and no check runs. */
export function canWithhold(workflow: Workflow): boolean {
  let found = withholding.get(workflow);
  if (found === undefined) withholding.set(workflow, (found = workflow.definition.constraints.some((constraint) => withholds(workflow, constraint))));
  return found;
}

/**
 * Whether a response classified as `state` must be withheld now, and what replaces it: entering `state` would
 * break a constraint that withholds. Pure, like `previewEnter`, which it reads.
 * @example
 * previewWithhold(workflow, session.workflow, 'share_internal_info')?.userMessage // "I'm sorry, I can't help with that. ..."
 */
export function previewWithhold(workflow: Workflow, snapshot: WorkflowSnapshot, state: string): WithholdDecision | undefined {
  if (!canWithhold(workflow)) return undefined;
  const preview = previewEnter(workflow, snapshot, state);
  if (preview.violations.length === 0) return undefined;
  const broken = preview.violations.flatMap((violation) => {
    const constraint = workflow.definition.constraints.find((candidate) => candidate.name === violation.constraint)!;
    return withholds(workflow, constraint) ? [{ constraint, message: violation.message }] : [];
  });
  if (broken.length === 0) return undefined;
  const first = broken[0]!.constraint;
  const userMessage = first.userMessage ?? (first.intervention === undefined ? undefined : workflow.intervention(first.intervention)?.userMessage) ?? DEFAULT_USER_MESSAGE;
  return { state, constraints: broken.map(({ constraint }) => constraint.name), userMessage, reason: broken.map(({ message }) => message).join(' ') };
}
