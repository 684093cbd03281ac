import { PROVENANCE_PREDICATES } from './provenance-builtins.js';

/**
 * Built-in predicates callable like any other. Comparisons (`=`, `!=`, `<`, ...), arithmetic and `X in List` are
 * operators, not listed here. Each entry says which arguments must be bound when it runs.
 */
export const BUILTIN_PREDICATES: Readonly<Record<string, { arity: number; inputs: readonly number[]; description: string }>> = {
  true: { arity: 0, inputs: [], description: 'always holds' },
  false: { arity: 0, inputs: [], description: 'never holds' },
  length: { arity: 2, inputs: [0], description: 'length(List, N): N is the number of elements of List' },
  said: {
    arity: 1,
    inputs: [0],
    description: 'said(State): the workflow reached State earlier in this conversation (its classifier recognised it: a tool call, a pattern, an exemplar)',
  },
  hours_since: {
    arity: 2,
    inputs: [0],
    description: "hours_since(Timestamp, H): H hours have passed from an ISO timestamp to the sentinel's clock (no zone means UTC)",
  },
  ...PROVENANCE_PREDICATES,
};

/** Whether `name` is a built-in predicate. */
export function isBuiltinPredicate(name: string): boolean {
  return Object.hasOwn(BUILTIN_PREDICATES, name);
}
