import { fakeModel } from '@langchain/core/testing';
import { describe, expect, it, vi } from 'vitest';
import { judgeModel } from '../../../adapters/langchain/index.js';
import { createJudge, parseRubrics } from '../../../src/index.js';

const rubrics = parseRubrics('policy:\n  - Never promise a refund amount before the assessment.\n');

describe('judgeModel (LangChain)', () => {
  it('judges through withStructuredOutput', async () => {
    const model = fakeModel().structuredResponse({ criteria: [{ id: 'rule_1', score: 0, reasoning: 'names an amount', evidence: ['$120'] }], confidence: 0.9 });
    const judge = createJudge({ model: judgeModel(model, { modelId: 'fake' }), rubrics, logger: { warn: vi.fn() } });
    const judgment = await judge.judge('policy', { response: 'You will get $120 back.' });
    expect(judgment).toMatchObject({ outcome: 'fail', action: 'block', verdict: { criteria: [{ id: 'rule_1', score: 0, evidence: ['$120'] }] } });
    expect(judgment.key).toContain('|fake|');
  });
});

describe('judgeModel (LangChain) from a provider:model string', () => {
  it('resolves the string with initChatModel on the first judgment; a name it cannot load is that judgment’s error', async () => {
    const model = judgeModel('nosuchprovider:some-model');
    expect(model.modelId).toBe('nosuchprovider:some-model');
    const judge = createJudge({ model, rubrics, logger: { warn: vi.fn() } });
    const judgment = await judge.judge('policy', { response: 'x' });
    expect(judgment).toMatchObject({ outcome: 'error', action: 'ask', error: { kind: 'model' } });
    expect(judgment.error!.message).toContain("cannot load the judge model 'nosuchprovider:some-model'");
  });
});
