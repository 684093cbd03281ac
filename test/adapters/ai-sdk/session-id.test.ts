import { describe, expect, it } from 'vitest';
import type { CallOptions } from '../../../adapters/ai-sdk/host-types.js';
import { conversationId, sessionIdFromMetadata, sessionIdOf, withSessionMetadata } from '../../../adapters/ai-sdk/session-id.js';
import { stableHash } from '../../../adapters/ai-sdk/stable-hash.js';

const params = (overrides: Partial<CallOptions> = {}): CallOptions => ({
  prompt: [
    { role: 'system', content: 'You are a support agent.' },
    { role: 'user', content: [{ type: 'text', text: 'Refund order 42.' }] },
  ],
  ...overrides,
});

describe('sessionIdOf', () => {
  it('takes the explicit option first, then providerOptions, then the header, then the conversation', () => {
    const all = params({ providerOptions: { panoptes: { sessionId: 'from-options' } }, headers: { 'x-panoptes-session-id': 'from-header' } });
    expect(sessionIdOf(all, 'explicit')).toBe('explicit');
    expect(sessionIdOf(all)).toBe('from-options');
    expect(sessionIdOf(params({ headers: { 'X-Panoptes-Session-Id': 'from-header' } }))).toBe('from-header');
    expect(sessionIdOf(params())).toBe(conversationId(params().prompt));
  });

  it('ignores empty or non-string ids', () => {
    const odd = params({ providerOptions: { panoptes: { sessionId: 42 } }, headers: { 'x-panoptes-session-id': '' } });
    expect(sessionIdOf(odd)).toMatch(/^conversation-/);
  });
});

describe('conversationId', () => {
  it('is stable across turns and ignores what comes after the first user message', () => {
    const later = [...params().prompt, { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'Sure.' }] }, { role: 'user' as const, content: [{ type: 'text' as const, text: 'Thanks.' }] }];
    expect(conversationId(later)).toBe(conversationId(params().prompt));
  });

  it('tells conversations apart by their system prompt or first user message', () => {
    const base = conversationId(params().prompt);
    expect(conversationId([{ role: 'system', content: 'You are a sales agent.' }, params().prompt[1]!])).not.toBe(base);
    expect(conversationId([params().prompt[0]!, { role: 'user', content: [{ type: 'text', text: 'Refund order 43.' }] }])).not.toBe(base);
    expect(conversationId([])).toMatch(/^conversation-[0-9a-f]{28}$/);
  });
});

describe('stableHash', () => {
  it('gives 28 hex digits, the same every time, and keeps part boundaries', () => {
    expect(stableHash(['a', 'b'])).toBe(stableHash(['a', 'b']));
    expect(stableHash(['ab', 'c'])).not.toBe(stableHash(['a', 'bc']));
    expect(stableHash([''])).toMatch(/^[0-9a-f]{28}$/);
    const seen = new Set(Array.from({ length: 10_000 }, (_, index) => stableHash([`conversation ${index}`])));
    expect(seen.size).toBe(10_000);
  });
});

describe('session metadata', () => {
  it('adds the session to the response metadata, keeping what the provider sent', () => {
    const metadata = withSessionMetadata({ openai: { responseId: 'r1' } }, 's1');
    expect(metadata).toEqual({ openai: { responseId: 'r1' }, panoptes: { sessionId: 's1' } });
    expect(sessionIdFromMetadata(metadata)).toBe('s1');
    expect(sessionIdFromMetadata(undefined)).toBeUndefined();
  });
});
