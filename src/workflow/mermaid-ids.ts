/**
 * Words the lexer of Mermaid's state diagrams reads as keywords where a state id stands, case-insensitively as it
 * matches them: `note --> b` is a parse error. Found by running `mermaid.parse()` (mermaid 11) over candidate words;
 * test/workflow/mermaid.test.ts checks every one against the real parser.
 */
export const MERMAID_RESERVED_IDS: ReadonlySet<string> = new Set(['class', 'classdef', 'click', 'default', 'href', 'note', 'scale', 'state', 'statediagram', 'style']);

/** Mermaid state ids are safe with letters, digits and `_` only: a `-` starts an arrow, `:` a label, `{` a block. */
const SAFE_ID = /^[A-Za-z0-9_]+$/;

/**
 * A Mermaid id for each state name: distinct for distinct names, readable, and stable (a function of the set of names,
 * not of their order, so reordering a file does not rename its nodes). A name that is already a safe id, and not a
 * keyword, is its own id. Any other name is spelt with `_` for each unsafe character, `_` appended to a keyword
 * (`note_`), then `_2`, `_3`… until no other id has it: `a_b` keeps `a_b`, and `a-b` becomes `a_b_2`. The diagram
 * labels a renamed state with its own name.
 * @example
 * mermaidIds(['note', 'a-b', 'a_b']); // Map { 'a_b' => 'a_b', 'note' => 'note_', 'a-b' => 'a_b_2' }
 */
export function mermaidIds(names: Iterable<string>): ReadonlyMap<string, string> {
  const unique = [...new Set(names)];
  const ids = new Map<string, string>();
  const taken = new Set<string>();
  // Names that need no renaming are claimed first, so a renamed name never takes another state's own name.
  for (const name of unique.filter(isSafeId)) {
    ids.set(name, name);
    taken.add(name);
  }
  // Sorted, so which of two clashing names gets the suffix does not depend on where they stand in the file.
  for (const name of unique.filter((name) => !isSafeId(name)).sort()) {
    const spelt = name.replace(/[^A-Za-z0-9_]/g, '_');
    const base = MERMAID_RESERVED_IDS.has(spelt.toLowerCase()) ? `${spelt}_` : spelt;
    let id = base;
    for (let suffix = 2; taken.has(id); suffix += 1) id = `${base}_${suffix}`;
    ids.set(name, id);
    taken.add(id);
  }
  return ids;
}

function isSafeId(name: string): boolean {
  return SAFE_ID.test(name) && !MERMAID_RESERVED_IDS.has(name.toLowerCase());
}
