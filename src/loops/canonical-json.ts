/** Options of {@link canonicalJson}. */
export interface CanonicalJsonOptions {
  /**
   * Property names dropped at any depth, for volatile fields such as `requestId` or `timestamp`.
   * @default none
   */
  ignoreKeys?: ReadonlySet<string>;
  /**
   * Longest string rendered in full; a longer one keeps its start and its length, so a 10 MB argument costs bounded
   * time and two long strings that differ only past this point compare equal.
   * @default 65536
   */
  maxStringLength?: number;
  /**
   * Most objects, arrays and values visited; past it the rest renders as `"[Truncated]"`. Bounds the work on a
   * graph that shares subtrees many times over (which is not a cycle, but can still be exponential to expand).
   * @default 10000
   */
  maxNodes?: number;
  /**
   * Deepest nesting rendered; deeper values render as `"[Truncated]"`.
   * @default 64
   */
  maxDepth?: number;
}

/** Placeholder of a value that refers back to one of its own ancestors. */
export const CIRCULAR_PLACEHOLDER = '[Circular]';
/** Placeholder of a value past the node or depth budget. */
export const TRUNCATED_PLACEHOLDER = '[Truncated]';
/** Placeholder of a value whose reading threw (a throwing getter, `toJSON` or proxy trap). */
export const UNREADABLE_PLACEHOLDER = '[Unreadable]';

const DEFAULT_MAX_STRING_LENGTH = 65_536;
const DEFAULT_MAX_NODES = 10_000;
const DEFAULT_MAX_DEPTH = 64;

/**
 * Renders any value as JSON with object keys sorted, so two tool calls with the same arguments in a different key
 * order compare equal. It never throws: tool arguments come from models and from user code, and the loop detector
 * must not take an agent down over an odd value.
 *
 * For JSON values the result is `JSON.stringify` with sorted keys (`undefined`, functions and symbols are dropped
 * from objects and become `null` in arrays; non-finite numbers become `null`; `toJSON` is honoured). Everything else
 * gets a stable placeholder: a cycle is `"[Circular]"`, a BigInt `"[BigInt 12]"`, a `Map` `{"[Map]":[[k,v],...]}`
 * and a `Set` `{"[Set]":[...]}` (both sorted), a value whose reading throws `"[Unreadable]"`, and anything past
 * the budgets `"[Truncated]"`.
 * @param value Any value, typically a tool call's `args`.
 * @param options See {@link CanonicalJsonOptions}.
 * @example
 * canonicalJson({ b: 1, a: [2n, undefined] }) // '{"a":["[BigInt 2]",null],"b":1}'
 */
export function canonicalJson(value: unknown, options: CanonicalJsonOptions = {}): string {
  const context: Context = {
    ignoreKeys: options.ignoreKeys,
    maxStringLength: options.maxStringLength ?? DEFAULT_MAX_STRING_LENGTH,
    maxNodes: options.maxNodes ?? DEFAULT_MAX_NODES,
    maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH,
    // Only the current path, not every object seen: a value shared by two branches is rendered twice, not flagged.
    ancestors: new Set(),
    nodes: 0,
  };
  return write(context, value, 0) ?? 'null';
}

// The walk is a set of module-level functions over one context object rather than closures made per call: the
// detector canonicalises the arguments of every tool call, so the per-call allocation shows in its budget.
interface Context {
  readonly ignoreKeys: ReadonlySet<string> | undefined;
  readonly maxStringLength: number;
  readonly maxNodes: number;
  readonly maxDepth: number;
  readonly ancestors: Set<object>;
  nodes: number;
}

const TRUNCATED = JSON.stringify(TRUNCATED_PLACEHOLDER);

function quote(context: Context, text: string): string {
  return JSON.stringify(text.length <= context.maxStringLength ? text : `${text.slice(0, context.maxStringLength)}…[${text.length} characters]`);
}

function write(context: Context, input: unknown, depth: number): string | undefined {
  if (++context.nodes > context.maxNodes || depth > context.maxDepth) return TRUNCATED;
  switch (typeof input) {
    case 'string':
      return quote(context, input);
    case 'number':
      return Number.isFinite(input) ? JSON.stringify(input) : 'null';
    case 'boolean':
      return input ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(`[BigInt ${input}]`);
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (input === null) return 'null';
  const object = input as object;
  if (context.ancestors.has(object)) return JSON.stringify(CIRCULAR_PLACEHOLDER);
  context.ancestors.add(object);
  try {
    return writeObject(context, object, depth);
  } catch {
    return JSON.stringify(UNREADABLE_PLACEHOLDER);
  } finally {
    context.ancestors.delete(object);
  }
}

/** Renders items in order, stopping at the node budget so a million-element array costs no more than the budget. */
function writeAll(context: Context, items: Iterable<unknown>, depth: number): string[] {
  const rendered: string[] = [];
  for (const item of items) {
    if (context.nodes >= context.maxNodes) {
      rendered.push(TRUNCATED);
      break;
    }
    rendered.push(write(context, item, depth + 1) ?? 'null');
  }
  return rendered;
}

function writeObject(context: Context, object: object, depth: number): string | undefined {
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return write(context, toJSON.call(object), depth + 1);
  if (Array.isArray(object)) return `[${writeAll(context, object, depth).join(',')}]`;
  if (object instanceof Map) return `{"[Map]":[${writeAll(context, object, depth).sort().join(',')}]}`;
  if (object instanceof Set) return `{"[Set]":[${writeAll(context, object, depth).sort().join(',')}]}`;
  if (ArrayBuffer.isView(object) && !(object instanceof DataView)) return `[${writeAll(context, object as unknown as Iterable<unknown>, depth).join(',')}]`;
  let rendered = '';
  for (const key of Object.keys(object).sort()) {
    if (context.ignoreKeys?.has(key)) continue;
    if (context.nodes >= context.maxNodes) {
      rendered += `${rendered === '' ? '' : ','}${TRUNCATED}:${TRUNCATED}`;
      break;
    }
    const item = write(context, (object as Record<string, unknown>)[key], depth + 1);
    if (item !== undefined) rendered += `${rendered === '' ? '' : ','}${quote(context, key)}:${item}`;
  }
  return `{${rendered}}`;
}
