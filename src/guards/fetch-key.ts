import { valueKey } from '../facts/index.js';
import type { Value } from '../rules/index.js';

/** Canonical key of a data tool call, shared by the store's fetch records and a check's own calls. */
export function fetchKey(tool: string, args: Record<string, Value>): string {
  // Built by hand rather than with canonicalJson: the arguments are almost always one or two scalars.
  const names = Object.keys(args);
  if (names.length > 1) names.sort();
  let key = `${tool}(`;
  for (const name of names) key += `${name}=${valueKey(args[name]!)};`;
  return `${key})`;
}
