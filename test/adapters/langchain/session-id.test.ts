import { describe, expect, it } from 'vitest';
import { resolveSessionId } from '../../../adapters/langchain/index.js';

describe('session ids', () => {
  it('takes the option, then the thread id, then metadata.session_id, then the fallback', () => {
    const fallback = () => 'hashed';
    expect(resolveSessionId({ option: 'o', threadId: 't', metadataSessionId: 'm', fallback })).toBe('o');
    expect(resolveSessionId({ threadId: 't', metadataSessionId: 'm', fallback })).toBe('t');
    expect(resolveSessionId({ threadId: '', metadataSessionId: 'm', fallback })).toBe('m');
    expect(resolveSessionId({ threadId: 7, fallback })).toBe('7');
    expect(resolveSessionId({ threadId: { not: 'an id' }, fallback })).toBe('hashed');
  });
});
