import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileWorkflow, type CompilerModel } from '../../src/authoring/index.js';
import { findWorkflowCounterexamples, validateWorkflow } from '../../src/workflow/index.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const read = (path: string) => readFileSync(`${EXAMPLES}${path}`, 'utf8');
const body = (yaml: string) => yaml.replace(/^(#.*\n|\n)*/, ''); // the header names the run, not the workflow

/** The committed answers of a scripted compile, in order. */
function answersOf(path: string): CompilerModel {
  const answers = JSON.parse(read(path)) as unknown[];
  let next = 0;
  return async () => answers[next++];
}

// Issue 19, "done when": from the example policies and the airline policy, a scripted compile produces workflows that
// validate; the committed outputs are what the compiler writes from the committed answers.
describe('scripted compiles of the example policies', () => {
  for (const policy of ['refund-desk', 'password-reset', 'pharmacy-refill']) {
    it(`${policy}: one round, valid, the committed workflow`, async () => {
      const result = await compileWorkflow(read(`policies/${policy}.md`), { model: answersOf(`policies/compiled/${policy}.answers.json`) });
      expect(result.rounds).toHaveLength(1);
      expect(result.unquoted).toEqual([]);
      expect(body(result.yaml)).toBe(body(read(`policies/compiled/${policy}.yaml`)));
      expect(validateWorkflow(read(`policies/compiled/${policy}.yaml`)).diagnostics).toEqual([]);
    });
  }

  it('airline: the first draft has two errors, the repaired one is the committed draft', async () => {
    const tools = (JSON.parse(read('airline/data/tools.json')) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    const result = await compileWorkflow(read('airline/data/policy.md'), { model: answersOf('airline/compile/answers.json'), tools });
    expect(result.rounds.map((round) => round.diagnostics.filter((diagnostic) => diagnostic.severity === 'error').map((diagnostic) => diagnostic.code))).toEqual([['unknown-state', 'unknown-state'], []]);
    expect(body(result.yaml)).toBe(body(read('airline/compile/workflow.draft.yaml')));
    expect(validateWorkflow(read('airline/workflow.yaml')).ok).toBe(true);
  });

  it('the loose refund desk has a counterexample; the compiled one has none', () => {
    const loose = validateWorkflow(read('policies/loose-refund-desk.yaml')).workflow!;
    expect(findWorkflowCounterexamples(loose).counterexamples.map(({ constraint, path }) => `${constraint}: ${path.join(' -> ')}`)).toEqual([
      'lookup_before_refund: greeting -> refund',
      'verify_before_refund: greeting -> refund',
    ]);
    expect(findWorkflowCounterexamples(validateWorkflow(read('policies/compiled/refund-desk.yaml')).workflow!).counterexamples).toEqual([]);
  });
});
