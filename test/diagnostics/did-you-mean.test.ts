import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closestName, createDidYouMean, DEFAULT_SUGGESTION_LIMIT, didYouMean } from '../../src/diagnostics/index.js';
import { validateWorkflow } from '../../src/workflow/index.js';

/** Levenshtein over every candidate, no shortcut: the oracle for `closestName`. */
function naiveClosest(name: string, known: readonly string[]): string | undefined {
  const distance = (a: string, b: string): number => {
    const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
    for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) rows[i]![j] = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    return rows[a.length]![b.length]!;
  };
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = distance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(Math.max(name.length, best.length) / 3)) ? best : undefined;
}

describe('closestName', () => {
  it('skips candidates by length without changing the answer', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'A'), maxLength: 7 });
    fc.assert(fc.property(word, fc.array(word, { maxLength: 8 }), (name, known) => {
      expect(closestName(name, known)).toBe(naiveClosest(name, known));
    }), { numRuns: 2000 });
  });
});

describe('createDidYouMean', () => {
  it('stops suggesting after its limit, so a file of unknown names costs no product of the two lists (issue 13)', () => {
    const suggest = createDidYouMean(2);
    expect([suggest('verfy', ['verify']), suggest('verfy', ['verify']), suggest('verfy', ['verify'])]).toEqual(["did you mean 'verify'?", "did you mean 'verify'?", '']);
    expect(didYouMean('verfy', ['verify'])).toBe("did you mean 'verify'?");
  });

  it('bounds the suggestions of one workflow check', () => {
    const unknown = DEFAULT_SUGGESTION_LIMIT + 10;
    const text = [
      'name: typos',
      'states:',
      '  - { name: state_a, initial: true }',
      'constraints:',
      ...Array.from({ length: unknown }, (_, index) => `  - { name: c${index}, type: never, target: state_b }`),
    ].join('\n');
    const hints = validateWorkflow(text).diagnostics.filter((diagnostic) => diagnostic.code === 'unknown-state').map((diagnostic) => diagnostic.hint ?? '');
    expect(hints).toHaveLength(unknown);
    expect(hints.filter((hint) => hint.includes("did you mean 'state_a'?"))).toHaveLength(DEFAULT_SUGGESTION_LIMIT);
  });
});
