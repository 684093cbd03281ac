import { describe, expect, it, vi } from 'vitest';
import { CassetteMissError, createJudge, emptyCassette, parseRubrics, recordedJudge, scriptedJudge, withUsage, type Cassette } from '../../src/index.js';

const rubrics = parseRubrics('policy:\n  - Never promise a refund amount before the assessment.\n');
const quiet = { warn: vi.fn() };
const verdictFor = (judged: string) => ({ criteria: [{ id: 'rule_1', score: /\$\d/.test(judged) ? 0 : 1, reasoning: '', evidence: [] }], confidence: 0.8 });
const responses = ['You get $50.', 'We will assess it first.', 'Refund: $10, promised.'];

describe('recordedJudge', () => {
  it('replays by cache key, in any order, with the recorded usage', async () => {
    const cassette = emptyCassette('openai:gpt-4o-mini');
    const live = scriptedJudge(({ judged }) => withUsage(verdictFor(judged), { inputTokens: 100, outputTokens: 20 }));
    const recording = createJudge({ model: recordedJudge(cassette, { strict: false, fallback: live }), rubrics, logger: quiet });
    const recorded = await Promise.all(responses.map((response) => recording.judge('policy', { response })));
    expect(Object.keys(cassette.entries)).toEqual(recorded.map((judgment) => judgment.key));
    expect(recorded[0]!.key).toContain('|openai:gpt-4o-mini|');

    const copy = JSON.parse(JSON.stringify(cassette)) as Cassette;
    const replaying = createJudge({ model: recordedJudge(copy), rubrics, logger: quiet });
    const replayed = [];
    for (const response of [...responses].reverse()) replayed.push(await replaying.judge('policy', { response }));
    expect(replayed.map((judgment) => judgment.outcome)).toEqual(['fail', 'pass', 'fail']);
    expect(replayed[0]!.usage).toEqual({ inputTokens: 100, outputTokens: 20 });
    expect(replaying.modelId).toBe('openai:gpt-4o-mini');
  });

  it('fails on a miss in strict mode, naming the key; the rubric’s on_error applies', async () => {
    const judge = createJudge({ model: recordedJudge(emptyCassette('m')), rubrics, logger: quiet });
    const judgment = await judge.judge('policy', { response: 'anything' });
    expect(judgment).toMatchObject({ outcome: 'error', action: 'ask', error: { kind: 'model' } });
    expect(judgment.error!.message).toContain(`no recorded verdict for key ${judgment.key}`);
    await expect(recordedJudge(emptyCassette('m'))({ key: 'k' } as never)).rejects.toSatisfy(CassetteMissError.isInstance);
  });
});
