import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../../adapters/ai-sdk/host-types.js';
import { routeOf, streamedContent } from '../../../adapters/ai-sdk/stream-state.js';

const finish: StreamPart = {
  type: 'finish',
  finishReason: { unified: 'tool-calls', raw: undefined },
  usage: { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } },
};
const call = (toolCallId: string, providerExecuted?: boolean): StreamPart => ({ type: 'tool-call', toolCallId, toolName: 'issue_refund', input: '{}', ...(providerExecuted ? { providerExecuted } : {}) });

describe('routeOf', () => {
  it('passes text and every other chunk on at once', () => {
    const parts: StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 'a' },
      { type: 'text-delta', id: 'a', delta: 'Hello' },
      { type: 'text-end', id: 'a' },
      { type: 'reasoning-start', id: 'r' },
      { type: 'tool-input-start', id: 'c1', toolName: 'issue_refund' },
      { type: 'tool-result', toolCallId: 'p1', toolName: 'web_search', result: { hits: 0 } },
    ];
    expect(parts.map(routeOf)).toEqual(parts.map(() => 'pass'));
  });

  it('holds client tool calls until finish, which releases them', () => {
    expect(routeOf(call('c1'))).toBe('hold');
    expect(routeOf(finish)).toBe('release');
  });

  it('passes provider-executed calls on at once, so their results stay behind them', () => {
    expect(routeOf(call('p1', true))).toBe('pass');
  });
});

describe('streamedContent', () => {
  it('collects the reasoning and the text, separating blocks, and ignores other chunks', () => {
    const parts: StreamPart[] = [
      { type: 'text-start', id: 'a' },
      { type: 'text-delta', id: 'a', delta: 'Hello' },
      { type: 'text-delta', id: 'a', delta: ' there.' },
      { type: 'text-end', id: 'a' },
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'Thinking.' },
      { type: 'text-start', id: 'b' },
      { type: 'text-delta', id: 'b', delta: 'Tell me more.' },
      { type: 'text-end', id: 'b' },
      { type: 'source', sourceType: 'url', id: 's', url: 'https://example.com' },
    ];
    expect(streamedContent(parts)).toEqual([
      { type: 'reasoning', text: 'Thinking.' },
      { type: 'text', text: 'Hello there.\nTell me more.' },
    ]);
  });

  it('lists the text first, then every tool call in order, provider-executed ones included', () => {
    const parts = [{ type: 'text-delta', id: 'a', delta: 'Refunding.' }, call('c1'), call('p1', true), call('c2'), finish] satisfies StreamPart[];
    expect(streamedContent(parts)).toEqual([{ type: 'text', text: 'Refunding.' }, call('c1'), call('p1', true), call('c2')]);
  });

  it('has no text item when no text came, and reads a cut-off response as far as it went', () => {
    expect(streamedContent([call('c1')])).toEqual([call('c1')]);
    expect(streamedContent([{ type: 'text-start', id: 'a' }, { type: 'text-end', id: 'a' }])).toEqual([]);
    expect(streamedContent([{ type: 'text-delta', id: 'a', delta: 'Partial' }, call('c1')])).toEqual([{ type: 'text', text: 'Partial' }, call('c1')]);
  });

  it('leaves the chunks it reads unchanged', () => {
    const parts = Object.freeze([Object.freeze({ type: 'text-delta' as const, id: 'a', delta: 'x' }), Object.freeze(call('c1')), Object.freeze(finish)]);
    expect(() => streamedContent(parts)).not.toThrow();
    expect(parts[0]).toEqual({ type: 'text-delta', id: 'a', delta: 'x' });
  });
});
