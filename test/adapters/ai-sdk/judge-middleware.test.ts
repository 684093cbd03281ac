/** panoptesMiddleware with a judge: turn rubrics on generateText and streamText responses, through the real hosts. */
import { generateText, streamText, wrapLanguageModel } from 'ai';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { panoptesMiddleware, type PanoptesMiddlewareOptions } from '../../../adapters/ai-sdk/index.js';
import { createJudge, createMonitor, DEFAULT_USER_MESSAGE, emptyCassette, InvalidOptionError, loadRubrics, parseRubrics, recordedJudge, scriptedJudge, type JudgeModelRequest } from '../../../src/index.js';
import { failingModel, hangingModel, quietLogger } from '../judge-fixtures.js';
import { recordingLogger, say, sequenceModel, systemOf, workflow } from './fixtures.js';

const SUPPORT_RUBRICS = fileURLToPath(new URL('../../../examples/rubrics/support.rubrics.yaml', import.meta.url));
const PROMISE = 'Sorry about that! You will get $120 back by Friday.';
const HEDGE = "Sorry about that! I've opened an assessment; once it is done we will tell you what we can offer.";
const ASK = 'My order arrived broken. Will I get my money back?';

/** Stand-in for an LLM on the support rubric: a response fails when it names a sum or promises a refund. */
function supportAnswer({ judged }: Pick<JudgeModelRequest, 'judged'>) {
  const response = judged.slice(judged.indexOf('## The response'));
  const amount = /[$€£]\s?\d[\d,.]*/.exec(response)?.[0];
  const commits = /\b(you will get|we will refund)\b/i.exec(response)?.[0];
  return {
    criteria: [
      { id: 'no_amount', score: amount ? 0 : 1, reasoning: amount ? 'The response names an amount.' : 'No amount is named.', evidence: amount ? [amount] : [] },
      { id: 'no_commitment', score: commits ? 1 : 5, reasoning: commits ? 'It promises a refund.' : 'It leaves the outcome to the assessment.', evidence: commits ? [commits] : [] },
    ],
    confidence: 0.8,
  };
}

async function supportJudge() {
  const judged: string[] = [];
  const judge = createJudge({ model: scriptedJudge((request) => (judged.push(request.judged), supportAnswer(request))), rubrics: await loadRubrics(SUPPORT_RUBRICS) });
  return { judge, judged };
}

const wrapped = (model: ReturnType<typeof sequenceModel>, options: PanoptesMiddlewareOptions) => wrapLanguageModel({ model, middleware: panoptesMiddleware(options) });

describe('panoptesMiddleware({ judge }) on generateText', () => {
  it('withholds a response a turn rubric refuses, and tells the model why on the next call', async () => {
    const { judge, judged } = await supportJudge();
    const mock = sequenceModel(say(PROMISE), say(HEDGE));
    const model = wrapped(mock, { judge, sessionId: 'support-1' });
    const first = await generateText({ model, prompt: ASK });
    expect(first.text).toBe(DEFAULT_USER_MESSAGE);
    expect(first.finishReason).toBe('content-filter');
    expect(first.providerMetadata?.panoptes).toMatchObject({
      withheld: { state: 'judge', constraints: ['no_refund_promise'] },
      judge: { decision: 'deny', reasons: ["rubric 'no_refund_promise' failed with score 0.00: no_amount 0 (The response names an amount.); no_commitment 1 (It promises a refund.); on_fail: intervene"] },
    });
    expect(judged[0]).toBe(`## The user's last message\n${ASK}\n\n## The response\n${PROMISE}`);

    const second = await generateText({ model, prompt: ASK });
    expect(second.text).toBe(HEDGE);
    expect(second.providerMetadata?.panoptes?.judge).toBeUndefined();
    expect(systemOf(mock.doGenerateCalls[1]!.prompt)).toBe(
      "[POLICY CHECK] Your previous response was withheld from the user: A policy check did not pass: Before the refund is assessed, the agent must not promise the customer a refund or an amount. The response names an amount. It promises a refund. Answer the user's last message again, within the policy.",
    );
    const third = await generateText({ model: wrapped(sequenceModel(say(HEDGE)), { judge, sessionId: 'support-1' }), prompt: ASK });
    expect(third.text).toBe(HEDGE); // the note was used once
  });

  it("regenerate: asks the model once more with the judge's finding and returns the compliant answer", async () => {
    const { judge } = await supportJudge();
    const mock = sequenceModel(say(PROMISE), say(HEDGE));
    const result = await generateText({ model: wrapped(mock, { judge, sessionId: 's', onViolatingText: 'regenerate', judgeUserMessage: 'Let me check that for you.' }), prompt: ASK });
    expect(result.text).toBe(HEDGE);
    expect(systemOf(mock.doGenerateCalls[1]!.prompt)).toContain('[POLICY CHECK] Your previous response was withheld from the user');
    // A second refusal is replaced with judgeUserMessage.
    const twice = await generateText({ model: wrapped(sequenceModel(say(PROMISE), say(PROMISE)), { judge, sessionId: 't', onViolatingText: 'regenerate', judgeUserMessage: 'Let me check that for you.' }), prompt: ASK });
    expect(twice.text).toBe('Let me check that for you.');
  });

  it('deliver: the response goes out, named in the metadata, and the next call carries the note', async () => {
    const { judge } = await supportJudge();
    const mock = sequenceModel(say(PROMISE), say(HEDGE));
    const model = wrapped(mock, { judge, sessionId: 's', onViolatingText: 'deliver' });
    const first = await generateText({ model, prompt: ASK });
    expect(first.text).toBe(PROMISE);
    expect(first.providerMetadata?.panoptes?.judge).toMatchObject({ decision: 'deny' });
    await generateText({ model, prompt: ASK });
    expect(systemOf(mock.doGenerateCalls[1]!.prompt)).toMatch(/^\[POLICY CHECK\] Your previous response did not pass a policy check: .* Correct it in this response\.$/);
  });

  it('with a monitor: what the workflow lets through is judged before it is returned', async () => {
    const { judge } = await supportJudge();
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const result = await generateText({ model: wrapped(sequenceModel(say(`Hello! ${PROMISE}`)), { monitor, judge, sessionId: 'm1' }), prompt: ASK });
    expect(result.text).toBe(DEFAULT_USER_MESSAGE);
    expect(result.providerMetadata?.panoptes).toMatchObject({ sessionId: 'm1', withheld: { state: 'judge' } });
  });

  it('replays a recorded cassette; a strict miss follows on_error (allow) and is counted', async () => {
    const rubrics = await loadRubrics(SUPPORT_RUBRICS);
    const cassette = emptyCassette('gpt-test');
    const recording = createJudge({ model: recordedJudge(cassette, { strict: false, fallback: scriptedJudge(supportAnswer) }), rubrics });
    await generateText({ model: wrapped(sequenceModel(say(PROMISE)), { judge: recording }), prompt: ASK });
    const replay = createJudge({ model: recordedJudge(cassette), rubrics, logger: quietLogger() });
    expect((await generateText({ model: wrapped(sequenceModel(say(PROMISE)), { judge: replay }), prompt: ASK })).text).toBe(DEFAULT_USER_MESSAGE);
    expect((await generateText({ model: wrapped(sequenceModel(say('You will get $80 back.')), { judge: replay }), prompt: ASK })).text).toBe('You will get $80 back.');
    expect(replay.stats().errors.model).toBe(1);
  });

  describe('a judge that cannot answer: on_error decides, the miss is counted', () => {
    const turnRubric = (onError: string) =>
      parseRubrics(`
rubrics:
  - id: polite
    description: The response is polite.
    scope: turn
    criteria: [{ id: polite, description: polite }]
    pass_at: 1
    on_fail: block
    on_error: ${onError}
`);
    it('hanging: on_error allow delivers the response', async () => {
      const judge = createJudge({ model: hangingModel, rubrics: turnRubric('allow'), timeoutMs: 30, logger: quietLogger() });
      expect((await generateText({ model: wrapped(sequenceModel(say(HEDGE)), { judge }), prompt: ASK })).text).toBe(HEDGE);
      expect(judge.stats().errors.timeout).toBe(1);
    });
    it('failing: on_error deny withholds it', async () => {
      const judge = createJudge({ model: failingModel, rubrics: turnRubric('deny'), logger: quietLogger() });
      const result = await generateText({ model: wrapped(sequenceModel(say(HEDGE)), { judge }), prompt: ASK });
      expect(result.text).toBe(DEFAULT_USER_MESSAGE);
      expect(result.providerMetadata?.panoptes?.judge).toMatchObject({ decision: 'deny', reasons: ["rubric 'polite' could not be judged (model: the judge's model failed: provider down); on_error: deny"] });
      expect(judge.stats().errors.model).toBe(1);
    });
    it('over budget: on_error ask delivers the response and names the question in the metadata', async () => {
      const judge = createJudge({ model: scriptedJudge(() => ({ criteria: [{ id: 'polite', score: 1, reasoning: '', evidence: [] }], confidence: 1 })), rubrics: turnRubric('ask'), budget: { process: { calls: 0 } }, logger: quietLogger() });
      const result = await generateText({ model: wrapped(sequenceModel(say(HEDGE)), { judge }), prompt: ASK });
      expect(result.text).toBe(HEDGE);
      expect(result.providerMetadata?.panoptes?.judge).toMatchObject({ decision: 'ask' });
      expect(judge.stats()).toMatchObject({ calls: 0, errors: { budget: 1 } });
    });
  });

  it('refuses a judge that is not one, and an empty judgeUserMessage, at construction', () => {
    expect(() => panoptesMiddleware({ judge: {} as never })).toThrow(InvalidOptionError);
    expect(() => panoptesMiddleware({ judge: { judgeScope: () => [] } as never, judgeUserMessage: '' })).toThrow(InvalidOptionError);
  });
});

describe('panoptesMiddleware({ judge }) on streamText', () => {
  it('with a monitor and textPolicy hold: the held response is judged before any of it goes out, and withheld', async () => {
    const { judge } = await supportJudge();
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const result = streamText({ model: wrapped(sequenceModel(say(PROMISE)), { monitor, judge, sessionId: 'h1', textPolicy: 'hold' }), prompt: ASK });
    const chunks: string[] = [];
    for await (const chunk of result.textStream) chunks.push(chunk);
    expect(chunks.join('')).toBe(DEFAULT_USER_MESSAGE);
    expect(await result.finishReason).toBe('content-filter');
    expect((await result.providerMetadata)?.panoptes).toMatchObject({ withheld: { state: 'judge', constraints: ['no_refund_promise'] } });
  });

  it("held and regenerate: the second response, asked for with the judge's finding, streams instead", async () => {
    const { judge } = await supportJudge();
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const mock = sequenceModel(say(PROMISE), say(HEDGE));
    const result = streamText({ model: wrapped(mock, { monitor, judge, sessionId: 'h2', textPolicy: 'hold', onViolatingText: 'regenerate' }), prompt: ASK });
    expect(await result.text).toBe(HEDGE);
    expect(systemOf(mock.doStreamCalls[1]!.prompt)).toContain('[POLICY CHECK] Your previous response was withheld from the user');
  });

  it('streamed as it comes (textPolicy stream, or no monitor): judged at the end, and the next call carries the note', async () => {
    const { judge } = await supportJudge();
    for (const options of [{ judge, sessionId: 's1' }, { judge, sessionId: 's2', monitor: createMonitor({ workflow, logger: recordingLogger() }) }]) {
      const mock = sequenceModel(say(PROMISE), say(HEDGE));
      const model = wrapped(mock, options);
      expect(await streamText({ model, prompt: ASK }).text).toBe(PROMISE);
      expect(await streamText({ model, prompt: ASK }).text).toBe(HEDGE);
      expect(systemOf(mock.doStreamCalls[1]!.prompt)).toMatch(/^\[POLICY CHECK\] Your previous response did not pass a policy check: /);
    }
  });
});
