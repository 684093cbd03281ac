import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../../adapters/ai-sdk/host-types.js';
import { endStream, initialStreamState, stepStream, streamedContent, type StreamState } from '../../../adapters/ai-sdk/stream-state.js';

const finish: StreamPart = {
  type: 'finish',
  finishReason: { unified: 'tool-calls', raw: undefined },
  usage: { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } },
};
const call = (toolCallId: string, providerExecuted?: boolean): StreamPart => ({ type: 'tool-call', toolCallId, toolName: 'issue_refund', input: '{}', ...(providerExecuted ? { providerExecuted } : {}) });

/** Runs the parts through the step function, recording what is emitted and when classification starts. */
function run(parts: StreamPart[], state: StreamState = initialStreamState) {
  const log: string[] = [];
  for (const part of parts) {
    const step = stepStream(state, part);
    state = step.state;
    if (step.classify) log.push('classify');
    for (const emitted of step.emit) log.push(emitted.type === 'tool-call' ? `tool-call ${emitted.toolCallId}` : emitted.type);
  }
  return { state, log };
}

describe('stepStream', () => {
  it('passes text on at once and collects it, separating text blocks', () => {
    const { state, log } = run([
      { type: 'text-start', id: 'a' },
      { type: 'text-delta', id: 'a', delta: 'Hello' },
      { type: 'text-delta', id: 'a', delta: ' there.' },
      { type: 'text-end', id: 'a' },
      { type: 'reasoning-start', id: 'r' },
      { type: 'text-start', id: 'b' },
      { type: 'text-delta', id: 'b', delta: 'Tell me more.' },
      { type: 'text-end', id: 'b' },
    ]);
    expect(log).toEqual(['text-start', 'text-delta', 'text-delta', 'text-end', 'reasoning-start', 'text-start', 'text-delta', 'text-end']);
    expect(streamedContent(state)).toEqual([{ type: 'text', text: 'Hello there.\nTell me more.' }]);
  });

  it('holds client tool calls until finish, classifying just before releasing them', () => {
    const { state, log } = run([{ type: 'text-delta', id: 'a', delta: 'Refunding.' }, call('c1'), call('c2'), finish]);
    expect(log).toEqual(['text-delta', 'classify', 'tool-call c1', 'tool-call c2', 'finish']);
    expect(streamedContent(state)).toEqual([{ type: 'text', text: 'Refunding.' }, call('c1'), call('c2')]);
    expect(endStream(state)).toEqual({ state, emit: [], classify: false }); // nothing more at close
  });

  it('passes provider-executed calls on at once, so their results stay behind them', () => {
    const result: StreamPart = { type: 'tool-result', toolCallId: 'p1', toolName: 'web_search', result: { hits: 0 } };
    const { log } = run([call('p1', true), result, finish]);
    expect(log).toEqual(['tool-call p1', 'tool-result', 'classify', 'finish']);
  });

  it('classifies and releases at close when no finish came', () => {
    const { state } = run([{ type: 'text-delta', id: 'a', delta: 'Partial' }, call('c1')]);
    const end = endStream(state);
    expect(end.classify).toBe(true);
    expect(end.emit).toEqual([call('c1')]);
    expect(streamedContent(end.state)).toEqual([{ type: 'text', text: 'Partial' }, call('c1')]);
  });

  it('never mutates the state it is given', () => {
    const frozen = Object.freeze({ ...initialStreamState });
    expect(() => run([{ type: 'text-delta', id: 'a', delta: 'x' }, call('c1'), finish], frozen)).not.toThrow();
    expect(frozen).toEqual(initialStreamState);
  });
});
