/** The seven temporal constraint types of DESIGN.md section 4. */
export const CONSTRAINT_TYPES = ['eventually', 'never', 'always', 'precedence', 'response', 'until', 'next'] as const;
export type ConstraintType = (typeof CONSTRAINT_TYPES)[number];

/**
 * Names a set of states: one state name, `!name` (any state but that one), `*` (any state),
 * or a list of those (any of them).
 */
export type StateSelector = string | readonly string[];

/** Three-valued verdict of a constraint on a trace. Once not `pending`, it never changes. */
export type Verdict = 'satisfied' | 'violated' | 'pending';

/** The parameters a constraint type reads. */
export type ConstraintParameter = 'trigger' | 'target' | 'condition';

/** A temporal constraint over a session's trace of states: what `evaluateConstraint` and the monitors read. */
export interface TemporalConstraint {
  name: string;
  type: ConstraintType;
  trigger?: StateSelector;
  target?: StateSelector;
  condition?: StateSelector;
}

/**
 * Which parameters each type requires and which it also accepts. `until` reads `trigger` as A and `target` as B;
 * `next` without a trigger constrains the second state of the trace.
 */
export const CONSTRAINT_PARAMETERS: Readonly<
  Record<ConstraintType, { required: readonly ConstraintParameter[]; optional: readonly ConstraintParameter[] }>
> = {
  eventually: { required: ['target'], optional: [] },
  never: { required: ['target'], optional: [] },
  always: { required: ['condition'], optional: [] },
  precedence: { required: ['trigger', 'target'], optional: [] },
  response: { required: ['trigger', 'target'], optional: [] },
  until: { required: ['trigger', 'target'], optional: [] },
  next: { required: ['target'], optional: ['trigger'] },
};
