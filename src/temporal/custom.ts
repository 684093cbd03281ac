import type * as z from 'zod';
import { InvalidOptionError } from '../errors/index.js';
import type { MonitorState, TracePoint, Verdict, ViolationPoint } from './types.js';

/**
 * The incremental half of a constraint type: a small plain-JSON memory per session, stepped once per state entered,
 * like the built-in monitors. Synchronous and pure: it runs on every state a session enters, inside the monitor's
 * step, so keep each call O(1) whatever the history. A throw is caught: the constraint stays `pending` for that
 * session for good (it never blocks by failing), and the monitor counts and logs it once.
 */
export interface ConstraintEvaluator<Options, Memory> {
  /** The memory of an empty trace. Must survive `JSON.stringify` (sessions are persisted). */
  start(options: Options): Memory;
  /**
   * The next state of the trace. Return the verdict so far and the new memory: `pending` while undecided; once it
   * says `satisfied` or `violated` it is never called again for that session (a decided verdict never changes).
   */
  step(memory: Memory, state: string, options: Options): { verdict: Verdict; memory: Memory };
  /** The trace ended while the verdict was `pending`: what is owed decides it. @default () => 'satisfied' */
  close?(memory: Memory, options: Options): 'satisfied' | 'violated';
}

/** What `defineConstraintType` takes. */
export interface ConstraintTypeDefinition<Options, Memory> {
  /** The name a workflow writes in `type:`. Letters, digits, `_` and `-`, starting with a letter. */
  name: string;
  /**
   * Validates a constraint's `options` when the workflow loads (any zod schema). A failure is a positioned error
   * (file, line, field and the schema's message) and the workflow does not load.
   */
  schema: z.ZodType<Options>;
  evaluate: ConstraintEvaluator<Options, Memory>;
  /** The text of a violation, for the record and the guidance the model gets. */
  describe(options: Options, violation: ViolationPoint): string;
  /**
   * The state names the options refer to. The loader reports each one the workflow does not define (as for the
   * built-ins), and a transparent state the constraint names is one it sees. @default () => []
   */
  states?(options: Options): readonly string[];
  /**
   * The reference semantics: the verdict over a whole finite trace, written for clarity. `closed` says whether the
   * trace has ended. Optional; with it, `checkConstraintType` (in `panoptes/testing`) tests the evaluator against it.
   */
  reference?(trace: readonly string[], options: Options, context: { closed: boolean }): Verdict;
  /** One line for people: what the type means. */
  description?: string;
}

/** A constraint type made by `defineConstraintType`, ready to register. */
export interface ConstraintTypeDef<Options = unknown, Memory = unknown> extends Readonly<ConstraintTypeDefinition<Options, Memory>> {
  readonly kind: 'constraint-type';
}

const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/**
 * Defines a constraint type: its options' schema, its incremental evaluator, its violation text and, optionally, its
 * reference semantics. Register it (`registry.register(type)`, or export it from a module given to
 * `panoptes validate --module`) and workflows may use it as `type: <name>` with its options under `options:`.
 * @throws {InvalidOptionError} when the name or a required function is missing or malformed.
 * @example
 * const maxCount = defineConstraintType({
 *   name: 'max_count',
 *   schema: z.object({ state: z.string(), max: z.number().int().min(0) }),
 *   evaluate: {
 *     start: () => 0,
 *     step: (count, state, { state: counted, max }) => {
 *       const next = state === counted ? count + 1 : count;
 *       return { verdict: next > max ? 'violated' : 'pending', memory: next };
 *     },
 *   },
 *   describe: ({ state, max }, { step }) => `Entered '${state}' more than ${max} times (at trace position ${step}).`,
 *   states: ({ state }) => [state],
 * });
 */
export function defineConstraintType<Options, Memory>(definition: ConstraintTypeDefinition<Options, Memory>): ConstraintTypeDef<Options, Memory> {
  const fix = 'Pass { name, schema, evaluate: { start, step, close? }, describe } to defineConstraintType.';
  if (typeof definition?.name !== 'string' || !NAME.test(definition.name)) {
    throw new InvalidOptionError({ parameter: 'name', value: definition?.name, fix: `${fix} The name starts with a letter, then letters, digits, '_' or '-'.` });
  }
  if (typeof definition.schema?.safeParse !== 'function') throw new InvalidOptionError({ parameter: 'schema', value: definition.schema, fix: `${fix} The schema is a zod schema of the options.` });
  const evaluate = definition.evaluate;
  if (typeof evaluate?.start !== 'function' || typeof evaluate.step !== 'function' || (evaluate.close !== undefined && typeof evaluate.close !== 'function')) {
    throw new InvalidOptionError({ parameter: 'evaluate', value: evaluate, fix });
  }
  if (typeof definition.describe !== 'function') throw new InvalidOptionError({ parameter: 'describe', value: definition.describe, fix });
  for (const key of ['states', 'reference'] as const) {
    if (definition[key] !== undefined && typeof definition[key] !== 'function') throw new InvalidOptionError({ parameter: key, value: definition[key], fix: `\`${key}\` is a function, or leave it out.` });
  }
  return Object.freeze({ ...definition, kind: 'constraint-type' as const });
}

/** A constraint of a registered (non-built-in) type, with its parsed options: what the monitor steps. */
export interface CustomConstraint {
  readonly definition: ConstraintTypeDef<any, any>;
  readonly options: unknown;
  /** The state names the options refer to (`states`), for transparent states. */
  readonly names: readonly string[];
}

/** The monitor of an empty trace for a registered type: the evaluator's `start`, or a failure if it throws. */
export function startCustom(custom: CustomConstraint): MonitorState {
  try {
    return { verdict: 'pending', steps: 0, closed: false, memory: custom.definition.evaluate.start(custom.options) };
  } catch (error) {
    return { verdict: 'pending', steps: 0, closed: false, failed: failureText(error) };
  }
}

/** One step of a registered type's evaluator: a throw or a bad verdict freezes it as `failed` (pending for good). */
export function stepCustom(custom: CustomConstraint, state: MonitorState, enteredState: string): MonitorState {
  if (state.verdict !== 'pending' || state.closed || state.failed !== undefined) return state;
  const at: TracePoint = { step: state.steps + 1, state: enteredState };
  let result: { verdict: Verdict; memory: unknown };
  try {
    result = custom.definition.evaluate.step(state.memory, enteredState, custom.options);
    if (!VERDICTS.includes(result?.verdict)) throw new Error(`step returned ${JSON.stringify(result?.verdict)} as the verdict; expected 'pending', 'satisfied' or 'violated'`);
  } catch (error) {
    return { ...state, failed: failureText(error) };
  }
  const next: MonitorState = { verdict: result.verdict, steps: at.step, closed: false, memory: result.memory };
  if (result.verdict === 'violated') next.violation = { step: at.step, state: at.state, atClose: false };
  return next;
}

/** Closing a registered type's monitor: `close` decides a pending verdict (`satisfied` without it). */
export function closeCustom(custom: CustomConstraint, state: MonitorState): MonitorState {
  if (state.closed) return state;
  if (state.verdict !== 'pending' || state.failed !== undefined) return { ...state, closed: true };
  let verdict: 'satisfied' | 'violated';
  try {
    verdict = custom.definition.evaluate.close?.(state.memory, custom.options) ?? 'satisfied';
    if (verdict !== 'satisfied' && verdict !== 'violated') throw new Error(`close returned ${JSON.stringify(verdict)}; expected 'satisfied' or 'violated'`);
  } catch (error) {
    return { ...state, closed: true, failed: failureText(error) };
  }
  const closed: MonitorState = { ...state, verdict, closed: true };
  if (verdict === 'violated') closed.violation = { step: state.steps, state: null, atClose: true };
  return closed;
}

/** A registered type's violation text; its own failure falls back to a plain sentence. */
export function describeCustom(custom: CustomConstraint, name: string, state: MonitorState): string {
  if (state.verdict !== 'violated' || !state.violation) return `Constraint '${name}' is ${state.verdict}.`;
  try {
    const text = custom.definition.describe(custom.options, state.violation);
    if (typeof text === 'string' && text.trim() !== '') return text;
  } catch {
    // The violation stands; only its wording failed.
  }
  return `Constraint '${name}' (${custom.definition.name}) was violated at trace position ${state.violation.step}.`;
}

const VERDICTS: readonly unknown[] = ['pending', 'satisfied', 'violated'];

function failureText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 200 ? `${message.slice(0, 199)}…` : message;
}
