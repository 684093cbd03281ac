import type { Value } from './ast.js';

/** One step of a JSON path: a key, an index, or `*` (every element). */
export type PathSegment = { kind: 'key'; key: string } | { kind: 'index'; index: number } | { kind: 'wildcard' };

/**
 * Parses the subset of JSONPath the rule language accepts: `$`, `.key`, `["key"]`, `[0]`, `[*]` (every element of a
 * list, every value of an object).
 * Returns an error message instead of segments when the path is malformed.
 * @example parseJsonPath('$.flights[*].date') // [{key:'flights'}, {wildcard}, {key:'date'}]
 */
export function parseJsonPath(path: string): { segments: PathSegment[] } | { error: string } {
  if (!path.startsWith('$')) return { error: 'a JSON path starts with `$`' };
  const segments: PathSegment[] = [];
  let index = 1;
  while (index < path.length) {
    if (path[index] === '.') {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(path.slice(index + 1));
      if (!match) return { error: `expected a key after '.' at offset ${index}` };
      segments.push({ kind: 'key', key: match[0] });
      index += 1 + match[0].length;
    } else if (path[index] === '[') {
      const close = path.indexOf(']', index);
      if (close === -1) return { error: `unclosed '[' at offset ${index}` };
      const inside = path.slice(index + 1, close).trim();
      if (inside === '*') segments.push({ kind: 'wildcard' });
      else if (/^\d+$/.test(inside)) segments.push({ kind: 'index', index: Number(inside) });
      else if (/^"[^"]*"$/.test(inside)) segments.push({ kind: 'key', key: inside.slice(1, -1) });
      else return { error: `expected a number, * or "key" inside [...], found '${inside}'` };
      index = close + 1;
    } else {
      return { error: `unexpected '${path[index]}' at offset ${index}` };
    }
  }
  return { segments };
}

/** Why a path did not fit a tool's result: the step that failed and what was there instead. */
export interface PathMismatch {
  mismatch: string;
  /** The mismatch is a key the record does not have: the field is absent, the record is not of another shape. */
  absent?: true;
}

/**
 * Evaluates a parsed path against a JSON value. The result lists every value reached, and `expanded` says whether the
 * path fanned out (a `[*]`, or an array at the end): fanned-out results yield one fact per element.
 * A key on an array reads the array's `length` when the key is `length`, like JavaScript.
 */
export function evaluateJsonPath(root: unknown, segments: readonly PathSegment[]): { values: Value[]; expanded: boolean } | PathMismatch {
  let current: unknown[] = [root];
  let expanded = false;
  let where = '$';
  for (const segment of segments) {
    const next: unknown[] = [];
    for (const value of current) {
      if (segment.kind === 'wildcard') {
        // Like JSONPath, [*] on an object visits its values (profiles keyed by id, such as payment methods).
        if (isPlainObject(value)) next.push(...Object.values(value));
        else if (Array.isArray(value)) next.push(...value);
        else return { mismatch: `${where} is ${describe(value)}, not a list or an object` };
      } else if (segment.kind === 'index') {
        if (!Array.isArray(value)) return { mismatch: `${where} is ${describe(value)}, not a list` };
        if (segment.index >= value.length) return { mismatch: `${where} has ${value.length} elements, no [${segment.index}]` };
        next.push(value[segment.index]);
      } else if (Array.isArray(value) && segment.key === 'length') {
        next.push(value.length);
      } else {
        if (!isPlainObject(value)) return { mismatch: `${where} is ${describe(value)}, not an object with '${segment.key}'` };
        if (!Object.hasOwn(value, segment.key)) return { mismatch: `${where} has no key '${segment.key}'`, absent: true };
        next.push(value[segment.key]);
      }
    }
    if (segment.kind === 'wildcard') expanded = true;
    where += segment.kind === 'key' ? `.${segment.key}` : segment.kind === 'index' ? `[${segment.index}]` : '[*]';
    current = next;
  }
  const values: Value[] = [];
  for (const value of current) {
    if (Array.isArray(value)) {
      expanded = true;
      for (const element of value) values.push(toValue(element));
    } else {
      values.push(toValue(value));
    }
  }
  const bad = values.findIndex((value) => value === undefined);
  if (bad !== -1) return { mismatch: `${where} holds a value that is not JSON` };
  return { values, expanded };
}

function toValue(value: unknown): Value {
  return value as Value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (value === undefined) return 'missing';
  return `${typeof value} ${JSON.stringify(value)}`;
}
