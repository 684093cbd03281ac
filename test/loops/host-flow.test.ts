import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/messages/index.js';
import { LoopDetectedError, toolResultsAfterLastTurn, type LoopHint } from '../../src/loops/index.js';
import { createFakeEmbedder } from '../../src/testing/index.js';
import { call, detectorFor } from './helpers.js';

/**
 * The hook the monitor and the adapters use: `afterModel` observes the model's turn, `beforeModel` observes the
 * results that came back and takes the pending hint for this call.
 */
describe('the host hook: afterModel observes the turn, beforeModel completes it and applies the hint', () => {
  it('nudges a scripted agent that keeps failing the same call, then stops it', async () => {
    const detector = detectorFor({ embedder: createFakeEmbedder() });
    const messages: ChatMessage[] = [{ role: 'user', content: 'Book AF12.' }];
    const applied: (LoopHint | undefined)[] = [];
    let stopped: LoopDetectedError | undefined;
    for (let turn = 0; turn < 10 && !stopped; turn++) {
      // beforeModel
      await detector.observe('s1', { toolResults: toolResultsAfterLastTurn(messages) });
      const hint = detector.takePendingHint('s1');
      applied.push(hint);
      if (hint?.action === 'stop') break;
      // the model answers with the same call every time
      const toolCall = call('book', { flight: 'AF12' }, `c${turn}`);
      messages.push({ role: 'assistant', content: '', toolCalls: [toolCall] });
      // afterModel
      const report = await detector.observe('s1', { text: '', toolCalls: [toolCall] });
      if (report?.action === 'stop') stopped = new LoopDetectedError({ report, sessionId: 's1' });
      // the tool runs and fails
      messages.push({ role: 'tool', content: 'HTTP 503', toolCallId: toolCall.id!, isError: true });
    }
    expect(applied.map((hint) => hint?.action ?? '-')).toEqual(['-', '-', '-', 'hint', 'stronger-hint', 'stop']);
    expect(applied[3]).toMatchObject({ kind: 'repeated-error', text: expect.stringContaining('`book` failed 3 times in a row') });
    expect(stopped).toBeUndefined(); // the stop came with results, so beforeModel is where the run ends
  });
});

describe('quiet on honest work', () => {
  const steps = fc.uniqueArray(
    fc.record({ tool: fc.constantFrom('search', 'open', 'edit', 'run'), arg: fc.string({ minLength: 1, maxLength: 8 }), text: fc.string({ maxLength: 20 }) }),
    { minLength: 1, maxLength: 40, selector: (step) => `${step.tool}:${step.arg}:${step.text}` },
  );

  it('never reports a session whose steps are all different', () => {
    fc.assert(
      fc.property(steps, (sequence) => {
        const detector = detectorFor();
        return sequence.every(
          ({ tool, arg, text }, i) => detector.observeStructural('s1', { text, toolCalls: [call(tool, { arg })], toolResults: [{ name: tool, content: `result ${i}` }] }) === null,
        );
      }),
    );
  });

  it('never reports polling an exempt tool, however often and wherever it happens', () => {
    fc.assert(
      fc.property(steps, fc.array(fc.nat({ max: 40 }), { maxLength: 30 }), (sequence, pollsAt) => {
        const detector = detectorFor({ exemptTools: ['poll'] });
        const observed = sequence.flatMap(({ tool, arg, text }, i) => [
          ...pollsAt.filter((at) => at === i).map(() => ({ text: 'Waiting.', toolCalls: [call('poll')], toolResults: [{ name: 'poll', content: 'pending' }] })),
          { text, toolCalls: [call(tool, { arg })], toolResults: [{ name: tool, content: `result ${i}` }] },
        ]);
        return observed.every((step) => detector.observeStructural('s1', step) === null);
      }),
    );
  });
});
