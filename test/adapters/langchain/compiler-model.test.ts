import { fakeModel } from '@langchain/core/testing';
import { describe, expect, it } from 'vitest';
import { compilerModel } from '../../../adapters/langchain/index.js';
import { compileWorkflow } from '../../../src/index.js';
import { draft, POLICY } from '../../authoring/fixtures.js';

describe('compilerModel (LangChain)', () => {
  it('drafts through withStructuredOutput and yields a workflow that loads', async () => {
    const model = fakeModel().structuredResponse(draft());
    const result = await compileWorkflow(POLICY, { model: compilerModel(model) });
    expect(result.rounds).toHaveLength(1);
    expect(result.workflow.stateNames).toEqual(['greeting', 'verify_identity', 'refund', 'goodbye']);
  });
});
