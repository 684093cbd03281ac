import type { Value } from '../rules/index.js';

/** Where a fact came from: `seed`, `user` (a confirmation), `tool:<name>` (a data tool), or a caller's own label. */
export type FactSource = string;

/** A ground fact as the store holds it. */
export interface Fact {
  predicate: string;
  args: readonly Value[];
  source: FactSource;
  /** Clock time the fact was established, in milliseconds. */
  establishedAt: number;
  /** Clock time after which the fact no longer holds; absent for facts that last the session. */
  expiresAt?: number;
}

/** A context variable's current value. `version` changes on every bind, so results derived under an older binding can tell. */
export interface ContextBinding {
  value: Value;
  version: number;
  boundAt: number;
  source: FactSource;
}

/** A canonical text key for a value: equal values (atoms and strings alike) get equal keys, object key order ignored. */
export function valueKey(value: Value): string {
  if (typeof value === 'string') return `s${value}`;
  if (typeof value === 'number') return `n${value}`;
  if (value === null || typeof value === 'boolean') return String(value);
  return canonicalJson(value);
}

/** Equal values: the same primitive, or lists and objects with the same canonical JSON. */
export function sameValue(a: Value, b: Value): boolean {
  return a === b || (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null && valueKey(a) === valueKey(b));
}

/** Whether a fact's arguments fit a pattern: equal values where the pattern has one, anything where it is `undefined`. */
export function fitsPattern(args: readonly Value[], pattern: ReadonlyArray<Value | undefined>): boolean {
  if (args.length !== pattern.length) return false;
  for (let index = 0; index < pattern.length; index++) {
    const wanted = pattern[index];
    if (wanted !== undefined && !sameValue(args[index]!, wanted)) return false;
  }
  return true;
}

/** JSON with object keys sorted, so two equal tool argument objects give one cache key. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Renders a value in rule-language syntax, so the model can copy it into a query: bare atoms, quoted strings. */
export function formatValue(value: Value): string {
  if (typeof value === 'string') return /^[a-z][A-Za-z0-9_]*$/.test(value) && !RESERVED.has(value) ? value : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(formatValue).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([key, entry]) => `${/^[a-z][A-Za-z0-9_]*$/.test(key) ? key : JSON.stringify(key)}: ${formatValue(entry)}`)
      .join(', ')}}`;
  }
  return String(value);
}

const RESERVED = new Set(['true', 'false', 'null', 'not', 'in']);

/** Renders `predicate(arg, ...)` in rule-language syntax. */
export function formatFact(predicate: string, args: readonly Value[]): string {
  return args.length === 0 ? predicate : `${predicate}(${args.map(formatValue).join(', ')})`;
}
