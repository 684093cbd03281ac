import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MERMAID_RESERVED_IDS, mermaidIds } from '../../src/workflow/mermaid-ids.js';

describe('mermaidIds (issue 13, item 8)', () => {
  it('keeps a safe name, renames a keyword and a name with punctuation, and never merges two names', () => {
    expect(Object.fromEntries(mermaidIds(['note', 'a-b', 'a_b', 'state', 'Note', 'done', 'a.b']))).toEqual({
      note: 'note_',
      Note: 'Note_',
      state: 'state_',
      a_b: 'a_b', // its own name: claimed before any renamed name
      'a-b': 'a_b_2',
      'a.b': 'a_b_3',
      done: 'done',
    });
  });

  it('skips a suffix that another state already has as its name', () => {
    expect(Object.fromEntries(mermaidIds(['a-b', 'a_b', 'a_b_2']))).toEqual({ a_b: 'a_b', a_b_2: 'a_b_2', 'a-b': 'a_b_3' });
    expect(Object.fromEntries(mermaidIds(['note', 'note_']))).toEqual({ note_: 'note_', note: 'note__2' });
  });

  const names = fc.uniqueArray(fc.oneof(fc.constantFrom(...MERMAID_RESERVED_IDS, 'a-b', 'a_b', 'a.b', 'a_b_2', 'note_'), fc.string({ minLength: 1, maxLength: 6 })), { maxLength: 12 });

  it('gives distinct names distinct ids made of letters, digits and _, none a keyword', () => {
    fc.assert(
      fc.property(names, (list) => {
        const ids = [...mermaidIds(list).values()];
        expect(new Set(ids).size).toBe(list.length);
        for (const id of ids) {
          expect(id).toMatch(/^[A-Za-z0-9_]+$/);
          expect(MERMAID_RESERVED_IDS.has(id.toLowerCase())).toBe(false);
        }
      }),
    );
  });

  it('gives each name the same id whatever the order of the names', () => {
    fc.assert(
      fc.property(names.chain((list) => fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length }))), ([list, shuffled]) => {
        expect(Object.fromEntries(mermaidIds(shuffled))).toEqual(Object.fromEntries(mermaidIds(list)));
      }),
    );
  });
});
