import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it, vi } from 'vitest';
import { judgeModel } from '../../../adapters/ai-sdk/index.js';
import { createJudge, parseRubrics } from '../../../src/index.js';

const rubrics = parseRubrics('policy:\n  - Never promise a refund amount before the assessment.\n');
const usage = { inputTokens: { total: 400, noCache: 400, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 60, text: 60, reasoning: undefined } };
const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] });

describe('judgeModel (AI SDK)', () => {
  it('judges through generateText with a JSON-schema output, reports usage, and turns unparsable text into an invalid answer', async () => {
    const answers = [JSON.stringify({ criteria: [{ id: 'rule_1', score: 1, reasoning: 'no amount', evidence: [] }], confidence: 0.7 }), 'I think it is fine.'];
    let call = 0;
    const mock = new MockLanguageModelV3({ doGenerate: async () => answer(answers[call++]!) });
    const judge = createJudge({ model: judgeModel(mock), rubrics, logger: { warn: vi.fn() } });
    const passed = await judge.judge('policy', { response: 'We will assess it first.' });
    expect(passed).toMatchObject({ outcome: 'pass', usage: { inputTokens: 400, outputTokens: 60 } });
    expect(passed.key).toContain('|mock-provider:mock-model-id|');
    expect(mock.doGenerateCalls[0]!.responseFormat).toMatchObject({ type: 'json', schema: { type: 'object', required: ['criteria', 'confidence'] } });
    expect(mock.doGenerateCalls[0]!.abortSignal).toBeInstanceOf(AbortSignal);
    const invalid = await judge.judge('policy', { response: 'Another answer.' });
    expect(invalid).toMatchObject({ outcome: 'error', action: 'ask', error: { kind: 'invalid', message: 'the answer is not JSON: "I think it is fine."' } });
  });

  it('stops a call that outlives the timeout through its abort signal', async () => {
    let aborted = false;
    const mock = new MockLanguageModelV3({
      doGenerate: ({ abortSignal }) =>
        new Promise((_resolve, reject) => abortSignal?.addEventListener('abort', () => { aborted = true; reject(abortSignal.reason as Error); })),
    });
    const judge = createJudge({ model: judgeModel(mock, { maxRetries: 0 }), rubrics, timeoutMs: 20, logger: { warn: vi.fn() } });
    expect(await judge.judge('policy', { response: 'x' })).toMatchObject({ outcome: 'error', error: { kind: 'timeout' } });
    expect(aborted).toBe(true);
  });
});
