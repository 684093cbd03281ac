import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSessionText, sessionText } from '../../../adapters/langgraph/session-text.js';
import { createMonitor, type AssistantTurn } from '../../../src/index.js';
import { createFakeClock } from '../../../src/testing/index.js';
import { recordingLogger, supportWorkflow } from '../langchain/helpers.js';

/** What a model may say or call in the support workflow, and what the host may report around it. */
const turns: Record<string, AssistantTurn> = {
  ask: { content: 'Tell me more about the order.', toolCalls: [] },
  resolve: { content: 'Glad I could help. Is there anything else I can help with?', toolCalls: [] },
  leak: { content: 'Here are the internal notes on your account.', toolCalls: [] },
  verify: { content: '', toolCalls: [{ id: 'v', name: 'verify_identity', args: { customer_id: '42' } }] },
  refund: { content: '', toolCalls: [{ id: 'r', name: 'issue_refund', args: { order_id: 'A1' } }] },
};
type Move = { turn: keyof typeof turns; reportTool: boolean; nextCall: boolean; ms: number };
const move: fc.Arbitrary<Move> = fc.record({
  turn: fc.constantFrom(...(Object.keys(turns) as Array<keyof typeof turns>)),
  reportTool: fc.boolean(),
  nextCall: fc.boolean(),
  ms: fc.integer({ min: 0, max: 5_000 }),
});

describe('the session text in graph state', () => {
  it('reads back as the session it was written from, for any run of a monitor (differential: JSON.parse of JSON.stringify)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(move, { maxLength: 30 }), fc.integer({ min: 1, max: 8 }), async (moves, historyLimit) => {
        const clock = createFakeClock();
        const monitor = createMonitor({ workflow: supportWorkflow, historyLimit, clock, logger: recordingLogger() });
        for (const { turn, reportTool, nextCall, ms } of moves) {
          clock.advance(ms);
          await monitor.afterModel('s', turns[turn]!);
          if (reportTool) for (const call of turns[turn]!.toolCalls) await monitor.beforeTool('s', call);
          if (nextCall) await monitor.beforeModel('s', { messages: [] });
        }
        const session = await monitor.session('s');
        if (!session) return;
        const text = sessionText(session);
        expect(parseSessionText(text)).toEqual(JSON.parse(JSON.stringify(session)));
        expect(text.length).toBeLessThanOrEqual(JSON.stringify(session).length);
      }),
      { numRuns: 200 },
    );
  });
});
