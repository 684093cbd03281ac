import { InvalidOptionError } from '../errors/index.js';
import { CONSTRAINT_PARAMETERS, CONSTRAINT_TYPES, type ConstraintParameter, type TemporalConstraint } from './types.js';

/**
 * Checks that the constraint's type is known and that every parameter the type requires is present, so a bad
 * constraint fails when it is compiled (at load time), not when its first step arrives.
 * @throws {InvalidOptionError} naming the constraint, its type, the missing parameter and what to write.
 */
export function assertConstraintParameters(constraint: TemporalConstraint): void {
  if (!(CONSTRAINT_TYPES as readonly string[]).includes(constraint.type)) {
    throw new InvalidOptionError({
      parameter: 'type',
      value: constraint.type,
      fix: `Constraint '${constraint.name}' needs a type, one of ${CONSTRAINT_TYPES.join(', ')}.`,
    });
  }
  const { required } = CONSTRAINT_PARAMETERS[constraint.type];
  for (const parameter of required) {
    if (constraint[parameter] !== undefined) continue;
    throw new InvalidOptionError({
      parameter,
      value: undefined,
      fix:
        `Constraint '${constraint.name}' of type '${constraint.type}' requires ${required.map((p) => `\`${p}\``).join(' and ')}; ` +
        `add \`${parameter}\`${roleOf(constraint, parameter)}: a state name, \`!state\`, \`*\` or a list of these.`,
    });
  }
}

/** What the parameter means for this type, for the error message (`until` reads trigger and target as A and B). */
function roleOf(constraint: TemporalConstraint, parameter: ConstraintParameter): string {
  if (constraint.type === 'until') return parameter === 'trigger' ? ' (A, the states that must hold)' : ' (B, the state that ends it)';
  if (parameter === 'trigger') return ' (the state that starts the obligation)';
  if (parameter === 'condition') return ' (the states every step must be in)';
  return '';
}
