import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateWorkflow } from '../../src/workflow/index.js';
import { MINIMAL } from './helpers.js';

/** validateWorkflow promises never to throw for bad input: it reports diagnostics instead. */
describe('validateWorkflow on arbitrary input', () => {
  const settles = (input: unknown) => {
    const result = validateWorkflow(input);
    expect(result.ok).toBe(!result.diagnostics.some((diagnostic) => diagnostic.severity === 'error'));
    expect(result.ok).toBe(result.workflow !== undefined);
  };

  it('never throws for arbitrary values', () => {
    fc.assert(fc.property(fc.anything(), settles), { numRuns: 300 });
  });

  it('never throws for arbitrary text', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), settles), { numRuns: 300 });
  });

  it('never throws for a valid workflow with one line damaged', () => {
    const lines = MINIMAL.split('\n');
    const damaged = fc.tuple(fc.nat({ max: lines.length - 1 }), fc.string({ maxLength: 30 })).map(([index, replacement]) => lines.toSpliced(index, 1, replacement).join('\n'));
    fc.assert(fc.property(damaged, settles), { numRuns: 300 });
  });

  it('never throws for workflow-shaped values with arbitrary leaves', () => {
    const leaf = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }));
    const document = fc.record({
      name: leaf,
      states: fc.array(fc.record({ name: leaf, initial: leaf, classification: fc.record({ patterns: leaf, min_similarity: leaf }, { requiredKeys: [] }) }, { requiredKeys: ['name'] }), { maxLength: 4 }),
      transitions: fc.array(fc.record({ from: leaf, to: leaf, guard: fc.record({ expression: leaf, min_confidence: leaf }, { requiredKeys: [] }) }, { requiredKeys: [] }), { maxLength: 4 }),
      constraints: fc.array(fc.record({ name: leaf, type: leaf, target: leaf, trigger: leaf, severity: leaf, intervention: leaf }, { requiredKeys: [] }), { maxLength: 4 }),
      interventions: fc.dictionary(fc.string({ maxLength: 5 }), leaf, { maxKeys: 3 }),
    }, { requiredKeys: [] });
    fc.assert(fc.property(document, settles), { numRuns: 500 });
  });
});
