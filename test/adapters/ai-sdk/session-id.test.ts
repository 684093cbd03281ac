import { describe, expect, it } from 'vitest';
import type { CallOptions } from '../../../adapters/ai-sdk/host-types.js';
import { namedSessionIdOf, sessionIdFromMetadata, withSessionMetadata } from '../../../adapters/ai-sdk/session-id.js';

const params = (overrides: Partial<CallOptions> = {}): CallOptions => ({
  prompt: [
    { role: 'system', content: 'You are a support agent.' },
    { role: 'user', content: [{ type: 'text', text: 'Refund order 42.' }] },
  ],
  ...overrides,
});

describe('namedSessionIdOf', () => {
  it('takes the explicit option first, then providerOptions, then the header; else none', () => {
    const all = params({ providerOptions: { panoptes: { sessionId: 'from-options' } }, headers: { 'x-panoptes-session-id': 'from-header' } });
    expect(namedSessionIdOf(all, 'explicit')).toBe('explicit');
    expect(namedSessionIdOf(all)).toBe('from-options');
    expect(namedSessionIdOf(params({ headers: { 'X-Panoptes-Session-Id': 'from-header' } }))).toBe('from-header');
    expect(namedSessionIdOf(params())).toBeUndefined();
  });

  it('ignores empty or non-string ids', () => {
    const odd = params({ providerOptions: { panoptes: { sessionId: 42 } }, headers: { 'x-panoptes-session-id': '' } });
    expect(namedSessionIdOf(odd)).toBeUndefined();
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
