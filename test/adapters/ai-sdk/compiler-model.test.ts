import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { compilerModel } from '../../../adapters/ai-sdk/index.js';
import { compileWorkflow } from '../../../src/index.js';
import { draft, POLICY } from '../../authoring/fixtures.js';

const usage = { inputTokens: { total: 900, noCache: 900, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 250, text: 250, reasoning: undefined } };
const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] });

describe('compilerModel (AI SDK)', () => {
  it('drafts through generateText with a JSON-schema output, reports usage, and passes unparsable text on for repair', async () => {
    const answers = ['Sorry, here is a summary instead.', JSON.stringify(draft())];
    let call = 0;
    const mock = new MockLanguageModelV3({ doGenerate: async () => answer(answers[call++]!) });
    const result = await compileWorkflow(POLICY, { model: compilerModel(mock) });
    expect(result.rounds.map((round) => round.diagnostics.map((diagnostic) => diagnostic.code))).toEqual([['not-json'], []]);
    expect(result.usage).toEqual({ inputTokens: 1800, outputTokens: 500 });
    const [first, second] = mock.doGenerateCalls;
    expect(first!.responseFormat).toMatchObject({ type: 'json', schema: { type: 'object' } });
    expect(first!.prompt[0]).toMatchObject({ role: 'system' });
    expect(JSON.stringify(second!.prompt.at(-1))).toContain('the answer is not JSON');
  });
});
