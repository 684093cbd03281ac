import { describe, expect, it } from 'vitest';
import { createWorkflow, lintWorkflow, type ConstraintDefinition, type WorkflowDefinition } from '../../src/workflow/index.js';

describe('lintWorkflow', () => {
  it('lints 20,000 states with no transitions listed in one pass per constraint (issue 13)', () => {
    // Each state allows any next one, so the graph has 20,000 x 20,000 moves: visiting them one by one took minutes.
    const names = Array.from({ length: 20_000 }, (_, index) => `s${index}`);
    const constraint = (name: string, rest: Omit<ConstraintDefinition, 'name' | 'severity'>): ConstraintDefinition => ({ name, severity: 'error', ...rest });
    const definition: WorkflowDefinition = {
      name: 'implicit',
      version: '1',
      initialState: 's0',
      states: names.map((name, index) => ({
        name,
        initial: index === 0,
        terminal: index === names.length - 1,
        classification: { toolCalls: [`t_${name}`], patterns: [], exemplars: [], minSimilarity: 0.7 },
      })),
      transitions: [],
      constraints: [
        constraint('reach_the_end', { type: 'eventually', target: 's19999' }),
        constraint('answer', { type: 'response', trigger: 's1', target: 's2' }),
        constraint('stay_away', { type: 'always', condition: '!s5' }),
        constraint('second_is_first', { type: 'next', target: 's0' }), // staying is no move: never satisfiable
      ],
      interventions: {},
      onDeviation: { reaction: 'record' },
    };
    const diagnostics = lintWorkflow(createWorkflow(definition));
    expect(diagnostics.map(({ code, path }) => `${code} ${path}`)).toEqual(['constraint-unsatisfiable constraints[3]']);
  });
});
