import { InvalidOptionError } from '../errors/index.js';
import type { StateSelector } from './types.js';

/** The `*` element of a selector: any state. */
export const ANY_STATE = '*';
/** Prefix of a negated element: `!name` is any state but `name`. */
export const NOT_PREFIX = '!';

/** A selector compiled once into a predicate, with what a validator and a message need to know about it. */
export interface CompiledSelector {
  /** The selector as written. */
  readonly source: StateSelector;
  /** Whether `state` is one of the states the selector names. */
  readonly matches: (state: string) => boolean;
  /** The state names the selector mentions (plain and negated), deduplicated, in order of appearance. */
  readonly names: readonly string[];
  /** Whether the selector matches every state (`*`, or `!x` with `x` also listed, or two different `!`s). */
  readonly matchesAll: boolean;
}

/**
 * Compiles a selector into a predicate, once, so stepping a monitor never re-reads the selector.
 * @throws {InvalidOptionError} for an empty list, an empty name or a bare `!`.
 * @example
 * compileSelector(['a', 'b']).matches('b'); // true
 * compileSelector('!closed').matches('open'); // true
 */
export function compileSelector(selector: StateSelector, parameter = 'selector'): CompiledSelector {
  const elements = selectorElements(selector, parameter);
  const plain = new Set<string>();
  const negated = new Set<string>();
  let star = false;
  for (const element of elements) {
    if (element === ANY_STATE) star = true;
    else if (element.startsWith(NOT_PREFIX)) negated.add(element.slice(NOT_PREFIX.length));
    else plain.add(element);
  }
  // A union containing `!x` already matches every plain name but `x`, so the union collapses to one of three
  // shapes: everything, everything but one name, or a set of names.
  const [excluded] = negated;
  const matchesAll = star || negated.size > 1 || (excluded !== undefined && plain.has(excluded));
  let matches: (state: string) => boolean;
  if (matchesAll) matches = () => true;
  else if (excluded !== undefined) matches = (state) => state !== excluded;
  else if (plain.size === 1) {
    const only = [...plain][0];
    matches = (state) => state === only;
  } else matches = (state) => plain.has(state);
  return { source: selector, matches, names: selectorNames(selector), matchesAll };
}

/**
 * Whether `state` is named by `selector`, read directly from the definition (no compilation). The oracle
 * `evaluateConstraint` uses it so that the tests compare the monitors against independent code.
 */
export function selectorIncludes(selector: StateSelector, state: string): boolean {
  // Plain loops, no callbacks: the benchmark's re-scan baseline runs this on every state of the history.
  for (const element of typeof selector === 'string' ? [selector] : selector) {
    if (element === ANY_STATE) return true;
    if (element.startsWith(NOT_PREFIX) ? state !== element.slice(NOT_PREFIX.length) : state === element) return true;
  }
  return false;
}

/**
 * The state names a selector mentions, so a workflow validator can check that they exist. `*` mentions none;
 * `!x` mentions `x`.
 * @example
 * selectorNames(['a', '!b', '*']); // ['a', 'b']
 */
export function selectorNames(selector: StateSelector): string[] {
  const names = new Set<string>();
  for (const element of typeof selector === 'string' ? [selector] : selector) {
    if (element === ANY_STATE) continue;
    names.add(element.startsWith(NOT_PREFIX) ? element.slice(NOT_PREFIX.length) : element);
  }
  return [...names];
}

/** Options of `describeSelector`. */
export interface DescribeSelectorOptions {
  /** Wrap state names in single quotes, as messages do. @default false */
  quoted?: boolean;
}

/**
 * Renders a selector for people: `verify_identity`, `any of a, b`, `any state but x`, `any state`.
 * A list mixing names with `!x` or `*` reads `a or any state but x`.
 * @example
 * describeSelector(['a', 'b']); // 'any of a, b'
 * describeSelector('!x', { quoted: true }); // "any state but 'x'"
 */
export function describeSelector(selector: StateSelector, { quoted = false }: DescribeSelectorOptions = {}): string {
  const name = (value: string) => (quoted ? `'${value}'` : value);
  const elements = typeof selector === 'string' ? [selector] : [...new Set(selector)];
  const rendered = elements.map((element) =>
    element === ANY_STATE ? 'any state' : element.startsWith(NOT_PREFIX) ? `any state but ${name(element.slice(NOT_PREFIX.length))}` : name(element),
  );
  if (rendered.length === 0) return 'no state';
  if (rendered.length === 1) return rendered[0]!;
  const allPlain = elements.every((element) => element !== ANY_STATE && !element.startsWith(NOT_PREFIX));
  return allPlain ? `any of ${rendered.join(', ')}` : rendered.join(' or ');
}

function selectorElements(selector: StateSelector, parameter: string): readonly string[] {
  const elements = typeof selector === 'string' ? [selector] : selector;
  const fix = 'Name a state, `!state` (any state but that one), `*` (any state), or a non-empty list of these.';
  if (!Array.isArray(elements) || elements.length === 0) throw new InvalidOptionError({ parameter, value: selector, fix });
  for (const element of elements) {
    if (typeof element !== 'string' || element === '' || element === NOT_PREFIX) throw new InvalidOptionError({ parameter, value: selector, fix });
  }
  return elements;
}
