import { describe, expect, it } from 'vitest';
import type { CallOptions } from '../../../adapters/ai-sdk/host-types.js';
import { sessionIdFromMetadata, sessionIdOf, withSessionMetadata } from '../../../adapters/ai-sdk/session-id.js';
import { openingMessages } from '../../../adapters/ai-sdk/translate.js';
import { conversationSessionId } from '../../../src/index.js';

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
    expect(sessionIdOf(params())).toBe(conversationSessionId([{ role: 'system', content: 'You are a support agent.' }, { role: 'user', content: 'Refund order 42.' }]));
  });

  it('ignores empty or non-string ids', () => {
    const odd = params({ providerOptions: { panoptes: { sessionId: 42 } }, headers: { 'x-panoptes-session-id': '' } });
    expect(sessionIdOf(odd)).toMatch(/^conversation-/);
  });
});

describe('the conversation hash', () => {
  it('reads only the opening: later turns do not change it', () => {
    const later = [...params().prompt, { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'Sure.' }] }, { role: 'user' as const, content: [{ type: 'text' as const, text: 'Thanks.' }] }];
    expect(openingMessages(later)).toEqual(openingMessages(params().prompt));
    expect(sessionIdOf(params({ prompt: later }))).toBe(sessionIdOf(params()));
  });

  it('tells conversations apart by their system prompt or first user message, named by its text', () => {
    const base = sessionIdOf(params());
    expect(sessionIdOf(params({ prompt: [{ role: 'system', content: 'You are a sales agent.' }, params().prompt[1]!] }))).not.toBe(base);
    expect(sessionIdOf(params({ prompt: [params().prompt[0]!, { role: 'user', content: [{ type: 'text', text: 'Refund order 43.' }] }] }))).not.toBe(base);
    const withFile = { role: 'user' as const, content: [{ type: 'text' as const, text: 'Refund order 42.' }, { type: 'file' as const, mediaType: 'image/png', data: 'AAAA' }] };
    expect(sessionIdOf(params({ prompt: [params().prompt[0]!, withFile] }))).toBe(base);
    expect(sessionIdOf(params({ prompt: [] }))).toMatch(/^conversation-[0-9a-f]{28}$/);
  });

  it('is remembered per opening without mixing up openings whose texts run together alike', () => {
    const opening = (system: string[], user: string[]): CallOptions['prompt'] => [
      ...system.map((content) => ({ role: 'system' as const, content })),
      { role: 'user', content: user.map((text) => ({ type: 'text' as const, text })) },
    ];
    const openings = [opening(['ab'], ['c']), opening(['a'], ['bc']), opening(['a', 'b'], ['c']), opening(['ab'], ['c', ''])];
    for (const prompt of [...openings, ...openings]) {
      expect(sessionIdOf(params({ prompt }))).toBe(conversationSessionId(openingMessages(prompt)));
    }
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
