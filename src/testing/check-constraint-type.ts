import { isDeepStrictEqual } from 'node:util';
import { InvalidOptionError } from '../errors/index.js';
import { closeMonitor, compileCustomConstraint, initialMonitorState, stepMonitor, type CompiledConstraint, type ConstraintTypeDef, type MonitorState, type Verdict } from '../temporal/index.js';

/** Options of `checkConstraintType`. */
export interface CheckConstraintTypeOptions {
  /** The options to test the type with, as a workflow would write them (each is parsed by the type's schema). */
  options: readonly unknown[];
  /** The states traces are made of. @default every name the type's `states` reports for the options, plus one other */
  states?: readonly string[];
  /** Every trace up to this length is checked, shortest first, so a failure is a shortest one. @default 6 */
  maxLength?: number;
  /** How many random longer traces are checked after that. @default 300 */
  randomTraces?: number;
  /** The longest random trace. @default 40 */
  randomMaxLength?: number;
  /** Seed of the random traces, to reproduce a run. @default 1 */
  seed?: number;
}

/** Where the evaluator and the reference disagree, or which property broke. */
export interface ConstraintTypeCounterexample {
  options: unknown;
  trace: string[];
  /** Whether the trace was closed (the session ended) when the verdicts were compared. */
  closed: boolean;
  property: 'agrees-with-reference' | 'plain-json-memory' | 'never-fails';
  /** One sentence saying what went wrong. */
  message: string;
}

/** The outcome of `checkConstraintType`. */
export interface ConstraintTypeCheckResult {
  ok: boolean;
  /** How many trace prefixes were compared (each open and closed). */
  checked: number;
  counterexample?: ConstraintTypeCounterexample;
}

/**
 * The property test the built-in monitors pass, run on a constraint type's incremental evaluator against its
 * reference semantics (`reference`): at every prefix of every trace, open and closed, the evaluator (stepped exactly
 * as the workflow monitor steps it) gives the reference's verdict; its memory survives a JSON round trip unchanged
 * (each step continues from the round-tripped copy, as a session restored from a store does); it never throws.
 * Every trace up to `maxLength` is checked, shortest first, then random longer ones.
 * @throws {InvalidOptionError} when the type has no `reference`, or an option fails its schema.
 * @example
 * const result = checkConstraintType(maxCount, { options: [{ state: 'lookup', max: 2 }] });
 * expect(result.counterexample).toBeUndefined();
 */
export function checkConstraintType(type: ConstraintTypeDef<any, any>, { options, states, maxLength = 6, randomTraces = 300, randomMaxLength = 40, seed = 1 }: CheckConstraintTypeOptions): ConstraintTypeCheckResult {
  const reference = type.reference;
  if (typeof reference !== 'function') throw new InvalidOptionError({ parameter: 'reference', value: undefined, fix: `Give constraint type '${type.name}' a reference semantics: reference(trace, options, { closed }) returning its verdict.` });
  if (!Array.isArray(options) || options.length === 0) throw new InvalidOptionError({ parameter: 'options', value: options, fix: 'Pass at least one options object to test the type with.' });
  const parsed = options.map((written, index) => {
    const result = type.schema.safeParse(written);
    if (!result.success) throw new InvalidOptionError({ parameter: `options[${index}]`, value: written, fix: `They must fit the schema of '${type.name}': ${result.error.issues[0]?.message ?? 'invalid'}.` });
    return result.data;
  });
  let checked = 0;
  for (const [index, value] of parsed.entries()) {
    const compiled = compileCustomConstraint({ name: type.name, type: type.name }, { definition: type, options: value, names: [] });
    const alphabet = states ?? defaultAlphabet(type, value);
    const check = (trace: string[], state: MonitorState): ConstraintTypeCounterexample | undefined => {
      checked += 1;
      return checkPrefix(compiled, options[index], trace, state, (prefix, closed) => reference(prefix, value, { closed }));
    };
    // Breadth first: all traces of one length before the next, each continuing from its prefix's round-tripped state.
    let level: Array<{ trace: string[]; state: MonitorState }> = [{ trace: [], state: initialMonitorState(compiled) }];
    for (let length = 0; length <= maxLength && level.length > 0; length++) {
      const next: typeof level = [];
      for (const node of level) {
        const found = check(node.trace, node.state);
        if (found) return { ok: false, checked, counterexample: found };
        if (length === maxLength) continue;
        const restored = roundTrip(node.state);
        for (const entered of alphabet) next.push({ trace: [...node.trace, entered], state: stepMonitor(compiled, restored, entered) });
      }
      level = next;
    }
    const random = mulberry32(seed + index);
    for (let run = 0; run < randomTraces; run++) {
      const length = maxLength + 1 + Math.floor(random() * Math.max(1, randomMaxLength - maxLength));
      const trace: string[] = [];
      let state = initialMonitorState(compiled);
      for (let step = 0; step < length; step++) {
        trace.push(alphabet[Math.floor(random() * alphabet.length)]!);
        state = stepMonitor(compiled, roundTrip(state), trace.at(-1)!);
        const found = check([...trace], state);
        if (found) return { ok: false, checked, counterexample: found };
      }
    }
  }
  return { ok: true, checked };
}

/**
 * `checkConstraintType`, throwing an `Error` that names the counterexample: for a test runner.
 * @example
 * it('max_count agrees with its reference', () => assertConstraintType(maxCount, { options: [{ state: 'lookup', max: 2 }] }));
 */
export function assertConstraintType(type: ConstraintTypeDef<any, any>, options: CheckConstraintTypeOptions): void {
  const result = checkConstraintType(type, options);
  if (result.counterexample) throw new Error(`Constraint type '${type.name}' failed its property test: ${result.counterexample.message}`);
}

function checkPrefix(
  compiled: CompiledConstraint,
  options: unknown,
  trace: string[],
  state: MonitorState,
  reference: (trace: readonly string[], closed: boolean) => Verdict,
): ConstraintTypeCounterexample | undefined {
  const at = (closed: boolean) => `options ${JSON.stringify(options)}, trace [${trace.join(', ')}]${closed ? ' closed' : ' (open)'}`;
  const fail = (closed: boolean, property: ConstraintTypeCounterexample['property'], message: string) => ({ options, trace, closed, property, message: `${message}, with ${at(closed)}` });
  if (state.failed !== undefined) return fail(false, 'never-fails', `the evaluator failed: ${state.failed}`);
  if (!isDeepStrictEqual(roundTrip(state), state)) return fail(false, 'plain-json-memory', `the memory ${safeJson(state.memory)} does not survive JSON.stringify unchanged`);
  const open = reference(trace, false);
  if (state.verdict !== open) return fail(false, 'agrees-with-reference', `the evaluator says '${state.verdict}' where the reference says '${open}'`);
  const closedState = closeMonitor(compiled, state);
  if (closedState.failed !== undefined) return fail(true, 'never-fails', `close failed: ${closedState.failed}`);
  const closed = reference(trace, true);
  if (closedState.verdict !== closed) return fail(true, 'agrees-with-reference', `the evaluator says '${closedState.verdict}' where the reference says '${closed}'`);
  return undefined;
}

function defaultAlphabet(type: ConstraintTypeDef<any, any>, options: unknown): string[] {
  let names: string[] = [];
  try {
    names = [...new Set((type.states?.(options) ?? []).map(String))];
  } catch {
    // No names: the generic alphabet below.
  }
  if (names.length === 0) names = ['a', 'b'];
  let other = 'other';
  while (names.includes(other)) other = `_${other}`;
  return [...names, other];
}

function roundTrip(state: MonitorState): MonitorState {
  return JSON.parse(JSON.stringify(state)) as MonitorState;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A small seeded generator: the same seed, the same traces. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
