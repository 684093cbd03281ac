import type { Finding } from './findings.js';
import type { SourceIndices } from './normalise.js';
import type { Path } from './path.js';
import { rawWorkflowSchema, type RawWorkflow } from './schema.js';

const LISTS = ['states', 'transitions', 'constraints'] as const;
type List = (typeof LISTS)[number];

/** What was left out of a salvaged document, so the cross-checks neither miss nor invent problems. */
export interface Dropped {
  /** Names of dropped states: they exist, so references to them are not unknown. */
  states: string[];
  /** Names of dropped interventions. */
  interventions: string[];
  /** Whether any state was dropped: the initial-state count is then unreliable. */
  someStates: boolean;
}

/**
 * When the shape check fails inside list entries, cross-checks the rest anyway, so one pass reports a misspelt key
 * in one state and an unknown state in a transition. An unknown or doubled key is removed; any other bad entry is
 * dropped whole. Gives up (returns nothing) when a problem is outside the entries, e.g. `states` is missing.
 */
export function salvage(data: unknown, findings: readonly Finding[]): { raw: RawWorkflow; dropped: Dropped; indices: SourceIndices } | undefined {
  let document: Record<string, unknown>;
  try {
    document = structuredClone(data) as Record<string, unknown>;
  } catch {
    return undefined; // an already-parsed input holding functions or class instances: report the shape errors only
  }
  const bad = { states: new Set<number>(), transitions: new Set<number>(), constraints: new Set<number>(), interventions: new Set<string>() };
  for (const { path, code } of findings) {
    const [list, entry] = path;
    if ((code === 'unknown-key' || code === 'duplicate-key') && path.length > 0) removeKey(document, path);
    else if ((LISTS as readonly unknown[]).includes(list) && typeof entry === 'number') bad[list as List].add(entry);
    else if (list === 'interventions' && typeof entry === 'string') bad.interventions.add(entry);
    else return undefined;
  }
  const states = Array.isArray(document.states) ? (document.states as unknown[]) : [];
  const dropped: Dropped = {
    states: [...bad.states].map((index) => (states[index] as { name?: unknown } | undefined)?.name).filter((name): name is string => typeof name === 'string'),
    interventions: [...bad.interventions],
    someStates: bad.states.size > 0,
  };
  const indices: Record<string, number[]> = {};
  for (const list of LISTS) {
    const entries = document[list];
    if (!Array.isArray(entries)) continue;
    indices[list] = entries.flatMap((_, index) => (bad[list].has(index) ? [] : [index]));
    document[list] = entries.filter((_, index) => !bad[list].has(index));
  }
  if (typeof document.interventions === 'object' && document.interventions !== null) {
    document.interventions = Object.fromEntries(Object.entries(document.interventions).filter(([name]) => !bad.interventions.has(name)));
  }
  const reparsed = rawWorkflowSchema.safeParse(document);
  return reparsed.success ? { raw: reparsed.data, dropped, indices } : undefined;
}

function removeKey(document: Record<string, unknown>, path: Path): void {
  let parent: unknown = document;
  for (const segment of path.slice(0, -1)) parent = (parent as Record<string | number, unknown> | undefined)?.[segment];
  if (typeof parent === 'object' && parent !== null) delete (parent as Record<string, unknown>)[String(path.at(-1))];
}
