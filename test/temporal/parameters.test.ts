import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors/index.js';
import { assertConstraintParameters, CONSTRAINT_PARAMETERS, CONSTRAINT_TYPES } from '../../src/temporal/index.js';

describe('assertConstraintParameters', () => {
  it('names the constraint, the type and the missing parameter', () => {
    const call = () => assertConstraintParameters({ name: 'verify-first', type: 'precedence', trigger: 'process_refund' });
    expect(call).toThrow(
      "Invalid option `target`: received undefined. Constraint 'verify-first' of type 'precedence' requires `trigger` and `target`; add `target`: a state name, `!state`, `*` or a list of these.",
    );
    try {
      call();
    } catch (error) {
      expect(InvalidOptionError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'INVALID_OPTION', parameter: 'target' });
    }
  });

  it('explains A and B for until', () => {
    expect(() => assertConstraintParameters({ name: 'hold', type: 'until', target: 'done' })).toThrow('add `trigger` (A, the states that must hold)');
  });

  it('accepts next without trigger but not without target', () => {
    expect(() => assertConstraintParameters({ name: 'n', type: 'next', target: 'b' })).not.toThrow();
    expect(() => assertConstraintParameters({ name: 'n', type: 'next', trigger: 'a' })).toThrow('Invalid option `target`');
  });

  it('accepts every type with its required parameters', () => {
    for (const type of CONSTRAINT_TYPES) {
      const constraint = Object.fromEntries(CONSTRAINT_PARAMETERS[type].required.map((parameter) => [parameter, 'a']));
      expect(() => assertConstraintParameters({ name: type, type, ...constraint })).not.toThrow();
    }
  });

  it('rejects an unknown type', () => {
    expect(() => assertConstraintParameters({ name: 'x', type: 'sometimes' as never, target: 'a' })).toThrow(
      "Invalid option `type`: received \"sometimes\". Constraint 'x' needs a type, one of eventually, never, always, precedence, response, until, next.",
    );
  });
});
