import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createAgent } from 'langchain';
import { describe, expect, it, vi } from 'vitest';
import { panoptesMiddleware, type PanoptesMiddlewareOptions } from '../../../adapters/langchain/index.js';
import { createMonitor, InvalidOptionError, type Sentinel } from '../../../src/index.js';
import { refundSetup } from '../../guards/helpers.js';
import { callTool, recordingLogger, refundWorkflow, requestsOf } from './helpers.js';

const SYSTEM = 'You are a support agent.';

async function run(sentinel: Sentinel, options: Partial<PanoptesMiddlewareOptions> = {}) {
  const model = fakeModel().respond(callTool('set_context', { name: 'booking_of_interest', value: 'B1' }, 's1')).respond(new AIMessage('Booking B1 it is.'));
  const logger = recordingLogger();
  const agent = createAgent({ model, tools: [], systemPrompt: SYSTEM, middleware: [panoptesMiddleware({ sentinel, logger, ...options })] });
  const result = await agent.invoke({ messages: [new HumanMessage('About my booking B1.')] }, { configurable: { thread_id: 't1' } });
  return { systems: requestsOf(model).map((request) => request[0]), result, logger };
}

describe('panoptesMiddleware (LangChain): the factSummary option', () => {
  it('is on by default with a sentinel, and the next call reads the facts a tool result changed', async () => {
    const { systems } = await run(refundSetup({}).sentinel);
    expect(systems).toEqual([`system:${SYSTEM}\n\n[KNOWN FACTS]\nContext: (none bound)\nFacts: (none)`, `system:${SYSTEM}\n\n[KNOWN FACTS]\nContext: booking_of_interest = "B1"\nFacts: (none)`]);
  });

  it('false leaves the system prompt as the agent built it', async () => {
    const { systems } = await run(refundSetup({}).sentinel, { factSummary: false });
    expect(systems).toEqual([`system:${SYSTEM}`, `system:${SYSTEM}`]);
  });

  it('a summarize() that throws is logged once and the calls go on without it', async () => {
    const { sentinel } = refundSetup({});
    vi.spyOn(sentinel.facts, 'summarize').mockImplementation(() => {
      throw new Error('summary store down');
    });
    const { systems, result, logger } = await run(sentinel);
    expect(systems).toEqual([`system:${SYSTEM}`, `system:${SYSTEM}`]);
    expect(result.messages.at(-1)?.content).toBe('Booking B1 it is.');
    expect(logger.warnings.filter((warning) => warning.includes('sentinel.facts.summarize'))).toHaveLength(1);
  });

  it('is refused without a sentinel', () => {
    const monitor = createMonitor({ workflow: refundWorkflow });
    expect(() => panoptesMiddleware({ monitor, factSummary: true })).toThrow(InvalidOptionError);
    expect(() => panoptesMiddleware({ monitor, factSummary: true })).toThrow(/pass `sentinel` too/);
  });
});
