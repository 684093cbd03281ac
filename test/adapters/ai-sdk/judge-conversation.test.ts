/**
 * panoptesMiddleware with a judge's conversation rubrics: judged in the background every `every_turns` answers (or
 * with an answer a turn rubric warned about), the finding in the session's next call, never holding an answer.
 */
import { generateText, streamText, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { panoptesMiddleware, type PanoptesMiddlewareOptions } from '../../../adapters/ai-sdk/index.js';
import { createJudge, createMonitor, parseRubrics, scriptedJudge, type JudgeModel, type JudgeModelRequest } from '../../../src/index.js';
import { hangingModel, quietLogger } from '../judge-fixtures.js';
import { recordingLogger, say, sequenceModel, systemOf, workflow } from './fixtures.js';

const conversationRubric = (everyTurns: number) => `
  - id: on_topic
    description: The agent stays on the user's request.
    scope: conversation
    every_turns: ${everyTurns}
    criteria: [{ id: topic, description: on topic }]
    pass_at: 1
    on_fail: intervene
    on_error: allow
`;
const WARNING_TONE = `
  - id: tone
    description: The agent does not push products.
    scope: turn
    criteria: [{ id: calm, description: no selling }]
    pass_at: 1
    on_fail: warn
    on_error: allow
`;
const REVIEW = "[CONVERSATION REVIEW] A policy check did not pass: The agent stays on the user's request. it pushes a lottery Correct course in your next reply.";

/** Fails whatever it is shown that mentions a lottery; records the judged material by scope. */
function lotteryJudge(rubrics: string, model?: JudgeModel, timeoutMs?: number) {
  const judged: Array<{ scope: string; judged: string }> = [];
  const verdicts = scriptedJudge(({ rubric, judged: text }: JudgeModelRequest) => {
    judged.push({ scope: rubric.scope, judged: text });
    const bad = text.includes('lottery');
    return { criteria: [{ id: rubric.criteria[0]!.id, score: bad ? 0 : 1, reasoning: bad ? 'it pushes a lottery' : 'fine', evidence: [] }], confidence: 0.9 };
  });
  const judge = createJudge({ model: model ?? verdicts, rubrics: parseRubrics(`rubrics:${rubrics}`), logger: quietLogger(), ...(timeoutMs ? { timeoutMs } : {}) });
  return { judge, judged };
}

const wrapped = (model: ReturnType<typeof sequenceModel>, options: PanoptesMiddlewareOptions) => wrapLanguageModel({ model, middleware: panoptesMiddleware({ logger: recordingLogger(), ...options }) });
/** Lets a background judgment (a scripted one answers at once) finish. */
const background = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('panoptesMiddleware({ judge }): conversation rubrics', () => {
  it('generateText: judges every second answer of the session; a failing review reaches the next call once', async () => {
    const { judge, judged } = lotteryJudge(conversationRubric(2));
    const mock = sequenceModel(say('Hello.'), say('Buy a lottery ticket!'), say('Back to your order.'), say('Anything else?'));
    const model = wrapped(mock, { judge, sessionId: 'c1' });
    await generateText({ model, prompt: 'Hi' });
    await background();
    expect(judge.stats().judgments).toBe(0); // turn 1: not due
    await generateText({ model, prompt: 'And?' });
    await background();
    expect(judged).toEqual([{ scope: 'conversation', judged: '## The conversation\nuser: And?\nassistant: Buy a lottery ticket!' }]);
    await generateText({ model, prompt: 'Hm?' });
    expect(systemOf(mock.doGenerateCalls[2]!.prompt)).toBe(REVIEW);
    await generateText({ model, prompt: 'Ok.' });
    expect(systemOf(mock.doGenerateCalls[3]!.prompt)).toBe(''); // taken once
    await background();
    expect(judge.stats().judgments).toBe(2); // turn 4: due again
  });

  it('with a monitor: a turn rubric that warns makes the conversation rubric due at once', async () => {
    const { judge, judged } = lotteryJudge(`${WARNING_TONE}${conversationRubric(10)}`);
    const mock = sequenceModel(say('Buy a lottery ticket!'), say('Back to your order.'));
    const model = wrapped(mock, { monitor: createMonitor({ workflow, logger: recordingLogger() }), judge, sessionId: 'w1' });
    const first = await generateText({ model, prompt: 'Hi' });
    expect(first.text).toBe('Buy a lottery ticket!'); // warn delivers
    await background();
    expect(judged.map(({ scope }) => scope)).toEqual(['turn', 'conversation']);
    await generateText({ model, prompt: 'And?' });
    expect(systemOf(mock.doGenerateCalls[1]!.prompt)).toBe(REVIEW);
    await background();
    expect(judged.map(({ scope }) => scope)).toEqual(['turn', 'conversation', 'turn']); // no warning: not due (every 10)
  });

  it('streamText with a monitor: the review of a streamed answer reaches the next call', async () => {
    const { judge } = lotteryJudge(conversationRubric(1));
    const mock = sequenceModel(say('Buy a lottery ticket!'), say('Back to your order.'));
    const model = wrapped(mock, { monitor: createMonitor({ workflow, logger: recordingLogger() }), judge, sessionId: 's1' });
    expect(await streamText({ model, prompt: 'Hi' }).text).toBe('Buy a lottery ticket!');
    await background();
    expect(await streamText({ model, prompt: 'And?' }).text).toBe('Back to your order.');
    expect(systemOf(mock.doStreamCalls[1]!.prompt)).toBe(REVIEW);
  });

  it('streamText without a monitor: the session the call names is reviewed; a call naming none is not judged', async () => {
    const { judge } = lotteryJudge(conversationRubric(1));
    const mock = sequenceModel(say('Buy a lottery ticket!'), say('Buy a lottery ticket!'), say('Back to your order.'));
    const model = wrapped(mock, { judge });
    await streamText({ model, prompt: 'Hi' }).text;
    await background();
    expect(judge.stats().judgments).toBe(0); // no session: no next call to tell
    await streamText({ model, prompt: 'Hi', providerOptions: { panoptes: { sessionId: 'n1' } } }).text;
    await background();
    await streamText({ model, prompt: 'And?', providerOptions: { panoptes: { sessionId: 'n1' } } }).text;
    expect(systemOf(mock.doStreamCalls[2]!.prompt)).toBe(REVIEW);
  });

  it('a hanging judge never delays an answer: one judgment at a time per session, its timeout counted', async () => {
    const { judge } = lotteryJudge(conversationRubric(1), hangingModel, 1000);
    const model = wrapped(sequenceModel(say('Hello.'), say('Anything else?')), { judge, sessionId: 'h1' });
    const started = performance.now();
    expect((await generateText({ model, prompt: 'Hi' })).text).toBe('Hello.');
    expect((await streamText({ model, prompt: 'And?' }).text)).toBe('Anything else?');
    expect(performance.now() - started).toBeLessThan(800);
    expect(judge.stats().judgments).toBe(1); // the second answer's judgment skipped: the first is still in flight
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(judge.stats().errors.timeout).toBe(1);
  });
});
