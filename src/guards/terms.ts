import { formatValue, valueKey } from '../facts/index.js';
import type { ArithmeticOperator, TermNode, Value } from '../rules/index.js';

/**
 * A term as the solver runs it. Variables are numbered per clause (`index`), and a clause instance adds its frame
 * base, so trying a clause allocates no renamed copy of it.
 */
export type RTerm =
  | { kind: 'constant'; value: Value }
  | { kind: 'var'; index: number; name: string }
  | { kind: 'context'; name: string }
  | { kind: 'list'; items: readonly RTerm[] }
  | { kind: 'object'; entries: ReadonlyArray<readonly [string, RTerm]> }
  | { kind: 'arithmetic'; operator: ArithmeticOperator; left: RTerm; right: RTerm };

/** Numbers clause variables as terms are compiled; `_` gets a fresh number each time, so two `_` never meet. */
export class VariableNumbering {
  readonly names: string[] = [];
  private readonly indexes = new Map<string, number>();

  index(name: string): number {
    if (name === '_') {
      this.names.push('_');
      return this.names.length - 1;
    }
    let index = this.indexes.get(name);
    if (index === undefined) {
      index = this.names.length;
      this.names.push(name);
      this.indexes.set(name, index);
    }
    return index;
  }

  get count(): number {
    return this.names.length;
  }
}

/** Compiles a parsed term, numbering its variables. */
export function compileTerm(node: TermNode, variables: VariableNumbering): RTerm {
  switch (node.kind) {
    case 'constant':
      return { kind: 'constant', value: node.value };
    case 'var':
      return { kind: 'var', index: variables.index(node.name), name: node.name };
    case 'context':
      return { kind: 'context', name: node.name };
    case 'list': {
      const items = node.items.map((item) => compileTerm(item, variables));
      return items.every((item) => item.kind === 'constant') ? { kind: 'constant', value: items.map((item) => (item as { value: Value }).value) } : { kind: 'list', items };
    }
    case 'object':
      return { kind: 'object', entries: node.entries.map((entry) => [entry.key, compileTerm(entry.value, variables)] as const) };
    case 'arithmetic':
      return { kind: 'arithmetic', operator: node.operator, left: compileTerm(node.left, variables), right: compileTerm(node.right, variables) };
  }
}

// Variables live below 2^26 per search (the solver's step limit keeps them far below); trail lengths fit above.
const MARK_SPAN = 2 ** 26;

/** Marks a context variable the rulebase reads but the store has not bound. */
export const UNBOUND_CONTEXT = Symbol('unbound-context');

/**
 * Variable bindings of one proof search, with a trail so backtracking undoes exactly what a branch bound.
 * A variable is bound to a term in some frame (structure sharing); most end up bound to constants.
 */
export class Environment {
  private readonly terms: Array<RTerm | undefined> = [];
  private readonly bases: number[] = [];
  private readonly trail: number[] = [];
  private top = 0;
  /** The term and frame of the last `deref`, kept in fields so the hot path allocates nothing. */
  derefTerm: RTerm = { kind: 'constant', value: null };
  derefBase = 0;

  constructor(private readonly readContext: (name: string) => Value | typeof UNBOUND_CONTEXT) {}

  /** Reserves `count` fresh variables and returns their frame base. */
  allocate(count: number): number {
    const base = this.top;
    this.top += count;
    for (let index = base; index < this.top; index++) this.terms[index] = undefined;
    return base;
  }

  /** A point to return to, as one number (trail length and allocation top) so a choice point allocates nothing. */
  mark(): number {
    return this.trail.length * MARK_SPAN + this.top;
  }

  /** Undoes every binding made since `mark` and frees the variables allocated since. */
  undo(mark: number): void {
    const trailLength = Math.floor(mark / MARK_SPAN);
    while (this.trail.length > trailLength) this.terms[this.trail.pop()!] = undefined;
    this.top = mark % MARK_SPAN;
  }

  /** Follows variable bindings; the result is in `derefTerm`/`derefBase`. */
  deref(term: RTerm, base: number): void {
    while (term.kind === 'var') {
      const slot = base + term.index;
      const bound = this.terms[slot];
      if (bound === undefined) break;
      base = this.bases[slot]!;
      term = bound;
    }
    this.derefTerm = term;
    this.derefBase = base;
  }

  /**
   * The ground value of a term, `undefined` when it still contains an unbound variable, or `UNBOUND_CONTEXT` when it
   * reads a context variable nobody bound. Arithmetic is evaluated; a non-number operand makes the result `undefined`.
   */
  value(term: RTerm, base: number): Value | undefined | typeof UNBOUND_CONTEXT {
    this.deref(term, base);
    const resolved = this.derefTerm;
    const frame = this.derefBase;
    switch (resolved.kind) {
      case 'constant':
        return resolved.value;
      case 'var':
        return undefined;
      case 'context':
        return this.readContext(resolved.name);
      case 'list': {
        const items: Value[] = [];
        for (const item of resolved.items) {
          const value = this.value(item, frame);
          if (value === undefined || value === UNBOUND_CONTEXT) return value;
          items.push(value);
        }
        return items;
      }
      case 'object': {
        const object: Record<string, Value> = {};
        for (const [key, entry] of resolved.entries) {
          const value = this.value(entry, frame);
          if (value === undefined || value === UNBOUND_CONTEXT) return value;
          object[key] = value;
        }
        return object;
      }
      case 'arithmetic': {
        const left = this.value(resolved.left, frame);
        if (left === undefined || left === UNBOUND_CONTEXT) return left;
        const right = this.value(resolved.right, frame);
        if (right === undefined || right === UNBOUND_CONTEXT) return right;
        if (typeof left !== 'number' || typeof right !== 'number') return undefined;
        return arithmetic(resolved.operator, left, right);
      }
    }
  }

  /**
   * Unifies two terms. Context variables unify as their bound value; an object pattern matches any object that has
   * at least its keys (tool results carry more fields than a rule cares about). Returns false on an unbound context
   * as on any mismatch; callers that need to tell the two apart check contexts first.
   */
  unify(a: RTerm, aBase: number, b: RTerm, bBase: number): boolean {
    this.deref(a, aBase);
    a = this.derefTerm;
    aBase = this.derefBase;
    this.deref(b, bBase);
    b = this.derefTerm;
    bBase = this.derefBase;
    // Context variables and arithmetic stand for their value; resolving them before binding keeps a variable from
    // holding an unbound context that would only fail much later, far from the condition that read it.
    if (a.kind === 'context' || a.kind === 'arithmetic') {
      const value = this.value(a, aBase);
      if (value === undefined || value === UNBOUND_CONTEXT) return false;
      return this.unifyWithValue(b, bBase, value);
    }
    if (b.kind === 'context' || b.kind === 'arithmetic') {
      const value = this.value(b, bBase);
      if (value === undefined || value === UNBOUND_CONTEXT) return false;
      return this.unifyWithValue(a, aBase, value);
    }
    if (a.kind === 'var') {
      if (b.kind === 'var' && aBase + a.index === bBase + b.index) return true;
      this.bind(aBase + a.index, b, bBase);
      return true;
    }
    if (b.kind === 'var') {
      this.bind(bBase + b.index, a, aBase);
      return true;
    }
    if (a.kind === 'constant' && b.kind === 'constant') return a.value === b.value || valueKey(a.value) === valueKey(b.value);
    if (a.kind === 'constant') return this.unifyStructure(b, bBase, a.value);
    if (b.kind === 'constant') return this.unifyStructure(a, aBase, b.value);
    if (a.kind === 'list' && b.kind === 'list') {
      if (a.items.length !== b.items.length) return false;
      for (let index = 0; index < a.items.length; index++) if (!this.unify(a.items[index]!, aBase, b.items[index]!, bBase)) return false;
      return true;
    }
    if (a.kind === 'object' && b.kind === 'object') {
      for (const [key, entry] of a.entries) {
        const other = b.entries.find(([candidate]) => candidate === key);
        if (!other || !this.unify(entry, aBase, other[1], bBase)) return false;
      }
      return true;
    }
    return false;
  }

  /** Unifies a term with a ground value (a fact argument, a tool argument). */
  unifyWithValue(term: RTerm, base: number, value: Value): boolean {
    this.deref(term, base);
    const resolved = this.derefTerm;
    const frame = this.derefBase;
    if (resolved.kind === 'var') {
      this.bind(frame + resolved.index, { kind: 'constant', value }, 0);
      return true;
    }
    if (resolved.kind === 'constant') return resolved.value === value || valueKey(resolved.value) === valueKey(value);
    if (resolved.kind === 'context' || resolved.kind === 'arithmetic') {
      const own = this.value(resolved, frame);
      return own !== undefined && own !== UNBOUND_CONTEXT && valueKey(own) === valueKey(value);
    }
    return this.unifyStructure(resolved, frame, value);
  }

  private unifyStructure(term: RTerm, base: number, value: Value): boolean {
    if (term.kind === 'list') {
      if (!Array.isArray(value) || value.length !== term.items.length) return false;
      for (let index = 0; index < value.length; index++) if (!this.unifyWithValue(term.items[index]!, base, value[index] as Value)) return false;
      return true;
    }
    if (term.kind === 'object') {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
      const object = value as Record<string, Value>;
      for (const [key, entry] of term.entries) {
        if (!Object.hasOwn(object, key) || !this.unifyWithValue(entry, base, object[key]!)) return false;
      }
      return true;
    }
    return false;
  }

  private bind(slot: number, term: RTerm, base: number): void {
    this.terms[slot] = term;
    this.bases[slot] = base;
    this.trail.push(slot);
  }

  /** Renders a term with its current bindings, in rule-language syntax; unbound variables keep their names. */
  render(term: RTerm, base: number): string {
    this.deref(term, base);
    const resolved = this.derefTerm;
    const frame = this.derefBase;
    switch (resolved.kind) {
      case 'constant':
        return formatValue(resolved.value);
      case 'var':
        return resolved.name;
      case 'context': {
        const value = this.readContext(resolved.name);
        return value === UNBOUND_CONTEXT ? resolved.name : formatValue(value);
      }
      case 'list':
        return `[${resolved.items.map((item) => this.render(item, frame)).join(', ')}]`;
      case 'object':
        return `{${resolved.entries.map(([key, entry]) => `${key}: ${this.render(entry, frame)}`).join(', ')}}`;
      case 'arithmetic': {
        const value = this.value(resolved, frame);
        if (value !== undefined && value !== UNBOUND_CONTEXT) return formatValue(value);
        return `(${this.render(resolved.left, frame)} ${resolved.operator} ${this.render(resolved.right, frame)})`;
      }
    }
  }
}

function arithmetic(operator: ArithmeticOperator, left: number, right: number): number | undefined {
  switch (operator) {
    case '+':
      return left + right;
    case '-':
      return left - right;
    case '*':
      return left * right;
    case '/':
      return right === 0 ? undefined : left / right;
  }
}
