import { canonicalJson } from '../facts/index.js';
import { UNBOUND_CONTEXT, type Environment, type RTerm } from './terms.js';

/**
 * A goal's arguments with their current bindings and its variables numbered by first appearance: two goals with
 * equal keys are variants (the same up to renaming variables), which is how the solver recognises a goal that
 * depends on itself.
 */
export function variantKey(env: Environment, args: readonly RTerm[], base: number): string {
  const seen = new Map<number, number>();
  const parts: string[] = [];
  const walk = (term: RTerm, frame: number): void => {
    env.deref(term, frame);
    const resolved = env.derefTerm;
    const at = env.derefBase;
    switch (resolved.kind) {
      case 'var': {
        const slot = at + resolved.index;
        if (!seen.has(slot)) seen.set(slot, seen.size);
        parts.push(`_${seen.get(slot)}`);
        break;
      }
      case 'list':
        parts.push('[');
        for (const item of resolved.items) walk(item, at);
        parts.push(']');
        break;
      case 'object':
        parts.push('{');
        for (const [name, entry] of resolved.entries) {
          parts.push(name);
          walk(entry, at);
        }
        parts.push('}');
        break;
      default: {
        const value = env.value(resolved, at);
        parts.push(value === undefined || value === UNBOUND_CONTEXT ? '?' : canonicalJson(value));
      }
    }
    parts.push(',');
  };
  for (const arg of args) walk(arg, base);
  return parts.join('');
}
