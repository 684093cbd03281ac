import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { describe, expect, it, vi } from 'vitest';
import { panoptesMiddleware, policyTools, type PanoptesMiddlewareOptions } from '../../../adapters/ai-sdk/index.js';
import { createMonitor, InvalidOptionError, type Sentinel } from '../../../src/index.js';
import { refundSetup } from '../../guards/helpers.js';
import { callTool, recordingLogger, say, sequenceModel, workflow } from './fixtures.js';

const SYSTEM = 'You are a support agent.';
const EMPTY = `${SYSTEM}\n\n[KNOWN FACTS]\nContext: (none bound)\nFacts: (none)`;
const BOUND = `${SYSTEM}\n\n[KNOWN FACTS]\nContext: booking_of_interest = "B1"\nFacts: (none)`;

/** The model names the booking (a policy tool call that binds a context), then answers; the system text of each call. */
async function run(sentinel: Sentinel, options: Partial<PanoptesMiddlewareOptions> = {}, stream = false) {
  const mock = sequenceModel(callTool('set_context', 's1', { name: 'booking_of_interest', value: 'B1' }), say('Booking B1 it is.'));
  const logger = recordingLogger();
  const monitor = createMonitor({ workflow, logger });
  const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor, sentinel, logger, ...options }) });
  const call = { model, system: SYSTEM, tools: { ...policyTools(sentinel, { monitor }) }, prompt: 'About my booking B1.', stopWhen: stepCountIs(4) };
  let text: string;
  if (stream) {
    const result = streamText(call);
    text = await result.text;
  } else {
    text = (await generateText(call)).text;
  }
  const calls = stream ? mock.doStreamCalls : mock.doGenerateCalls;
  const systems = calls.map(({ prompt }) => prompt.filter((message) => message.role === 'system').map((message) => message.content));
  return { systems, text, logger };
}

describe('panoptesMiddleware (AI SDK) with a sentinel: the fact summary', () => {
  it('reaches the model at the end of the system message, and the next step reads the facts a tool result changed', async () => {
    const { systems, text } = await run(refundSetup({}).sentinel);
    expect(systems).toEqual([[EMPTY], [BOUND]]);
    expect(text).toBe('Booking B1 it is.');
  });

  it('with a sentinel and no monitor, only the facts are added', async () => {
    const { systems, text } = await run(refundSetup({}).sentinel, { monitor: undefined });
    expect(systems).toEqual([[EMPTY], [BOUND]]);
    expect(text).toBe('Booking B1 it is.');
  });

  it('reaches a streamed call too', async () => {
    const { systems } = await run(refundSetup({}).sentinel, {}, true);
    expect(systems).toEqual([[EMPTY], [BOUND]]);
  });

  it('is a system message of its own when the call has none', async () => {
    const { sentinel } = refundSetup({});
    const mock = sequenceModel(say('Hello.'));
    const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor: createMonitor({ workflow }), sentinel }) });
    await generateText({ model, prompt: 'Hi' });
    expect(mock.doGenerateCalls[0]!.prompt[0]).toEqual({ role: 'system', content: '[KNOWN FACTS]\nContext: (none bound)\nFacts: (none)' });
  });

  it('stays out with factSummary: false', async () => {
    const { systems } = await run(refundSetup({}).sentinel, { factSummary: false });
    expect(systems).toEqual([[SYSTEM], [SYSTEM]]);
  });

  it('a summarize() that throws is logged once and each call goes on without it', async () => {
    const { sentinel } = refundSetup({});
    vi.spyOn(sentinel.facts, 'summarize').mockImplementation(() => {
      throw new Error('summary store down');
    });
    const { systems, text, logger } = await run(sentinel);
    expect(systems).toEqual([[SYSTEM], [SYSTEM]]);
    expect(text).toBe('Booking B1 it is.');
    expect(logger.warnings.filter((warning) => warning.includes('sentinel.facts.summarize'))).toHaveLength(1);
  });

  it('refuses neither a monitor nor a sentinel at construction', () => {
    expect(() => panoptesMiddleware({})).toThrow(/Pass a monitor from createMonitor\(\), a sentinel from createSentinel\(\), a judge from createJudge\(\), or several/);
  });

  it('refuses factSummary without a sentinel at construction', () => {
    expect(() => panoptesMiddleware({ monitor: createMonitor({ workflow }), factSummary: true })).toThrow(InvalidOptionError);
    expect(() => panoptesMiddleware({ monitor: createMonitor({ workflow }), factSummary: true })).toThrow(/pass `sentinel` too/);
  });
});
