/** fast-check generators shared by the temporal property tests: small alphabets make coincidences likely. */
import fc from 'fast-check';
import { CONSTRAINT_TYPES, type StateSelector, type TemporalConstraint } from '../../src/temporal/index.js';

export const ALPHABET = ['a', 'b', 'c', 'd'] as const;

const element = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...ALPHABET) },
  { weight: 2, arbitrary: fc.constantFrom(...ALPHABET).map((name) => `!${name}`) },
  { weight: 1, arbitrary: fc.constant('*') },
);

/** A state name, `!name`, `*`, or a list of one to three of those. */
export const selectorArbitrary: fc.Arbitrary<StateSelector> = fc.oneof(element, fc.array(element, { minLength: 1, maxLength: 3 }));

/** A constraint of any type with its required parameters; `next` sometimes without trigger. */
export const constraintArbitrary: fc.Arbitrary<TemporalConstraint> = fc
  .record({
    type: fc.constantFrom(...CONSTRAINT_TYPES),
    trigger: selectorArbitrary,
    target: selectorArbitrary,
    condition: selectorArbitrary,
    withTrigger: fc.boolean(),
    each: fc.boolean(),
  })
  .map(({ type, trigger, target, condition, withTrigger, each }): TemporalConstraint => {
    if (type === 'always') return { name: 'c', type, condition };
    if (type === 'eventually' || type === 'never') return { name: 'c', type, target };
    if (type === 'next' && !withTrigger) return { name: 'c', type, target };
    // `each: true` on the types that take it: every trigger needs its own target.
    if (each && (type === 'precedence' || type === 'response')) return { name: 'c', type, trigger, target, each };
    return { name: 'c', type, trigger, target };
  });

/** A trace over the alphabet; consecutive duplicates allowed, since the monitors must not break on them. */
export const traceArbitrary = fc.array(fc.constantFrom(...ALPHABET, 'e'), { maxLength: 12 });
