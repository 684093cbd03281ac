import * as z from 'zod';
import { defineConstraintType, type Verdict } from '../../src/index.js';

/** Options of `max_count`: a state that may be entered at most `max` times. */
const maxCountOptions = z.strictObject({ state: z.string().min(1), max: z.number().int().min(0) });
type MaxCountOptions = z.infer<typeof maxCountOptions>;

/** The reference semantics: the whole trace, read plainly. */
function maxCountReference(trace: readonly string[], { state, max }: MaxCountOptions, { closed }: { closed: boolean }): Verdict {
  if (trace.filter((entered) => entered === state).length > max) return 'violated';
  return closed ? 'satisfied' : 'pending';
}

/** A constraint type of our own: a state entered more than `max` times is a violation. */
export const maxCount = defineConstraintType({
  name: 'max_count',
  description: 'A state may be entered at most `max` times.',
  schema: maxCountOptions,
  evaluate: {
    start: () => 0,
    step: (count: number, entered, { state, max }) => {
      const next = entered === state ? count + 1 : count;
      return { verdict: next > max ? 'violated' : 'pending', memory: next };
    },
  },
  describe: ({ state, max }, { step }) => `Entered '${state}' more than ${max} times (the last at trace position ${step}).`,
  states: ({ state }) => [state],
  reference: maxCountReference,
});

/** The same type with an off-by-one evaluator: it calls the `max`-th entry a violation already. */
export const wrongMaxCount = defineConstraintType({
  ...maxCount,
  evaluate: {
    start: () => 0,
    step: (count: number, entered, { state, max }) => {
      const next = entered === state ? count + 1 : count;
      return { verdict: next >= max ? 'violated' : 'pending', memory: next };
    },
  },
});

/** Its memory is a Set: not plain JSON, so a session restored from a store would lose it. */
export const setMemoryType = defineConstraintType({
  ...maxCount,
  name: 'distinct_states',
  evaluate: {
    start: () => new Set<string>(),
    step: (seen: Set<string>, entered, { state, max }) => {
      const next = new Set(seen).add(entered);
      return { verdict: next.has(state) && next.size > max ? 'violated' : 'pending', memory: next };
    },
  },
  reference: (trace, { state, max }, { closed }) => (trace.includes(state) && new Set(trace).size > max ? 'violated' : closed ? 'satisfied' : 'pending'),
});

/** A support workflow whose lookups are capped by `max_count`. */
export const LOOKUP_WORKFLOW = `
name: lookups
states:
  - name: greeting
    initial: true
    classification: { patterns: ["\\\\bhello\\\\b"] }
  - name: lookup
    classification: { tool_calls: [lookup_order] }
  - name: answer
    classification: { patterns: ["here is"] }
constraints:
  - name: few_lookups
    type: max_count
    options: { state: lookup, max: 2 }
    intervention: stop_looking
interventions:
  stop_looking: "Stop looking the order up: {details}"
`;
