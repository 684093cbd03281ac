import { describe, expect, it } from 'vitest';
import { rememberToolCalls, sessionOfToolCall } from '../../../adapters/ai-sdk/tool-call-sessions.js';

describe('tool-call sessions', () => {
  it('finds the session of a call until it is forgotten, per monitor', () => {
    const [monitor, other] = [{}, {}];
    rememberToolCalls(monitor, 's1', [{ id: 'call_a' }, { id: 'call_b' }, {}]);
    expect(sessionOfToolCall(other, 'call_a')).toBeUndefined();
    expect(sessionOfToolCall(monitor, 'call_a', { keep: true })).toBe('s1'); // before the call runs
    expect(sessionOfToolCall(monitor, 'call_a')).toBe('s1'); // when its result is recorded
    expect(sessionOfToolCall(monitor, 'call_a')).toBeUndefined(); // forgotten once recorded
    expect(sessionOfToolCall(monitor, 'call_b')).toBe('s1');
  });

  it('matches no session for an id two sessions used', () => {
    const monitor = {};
    rememberToolCalls(monitor, 's1', [{ id: 'call_0' }]);
    rememberToolCalls(monitor, 's1', [{ id: 'call_0' }]); // the same session again is fine
    rememberToolCalls(monitor, 's2', [{ id: 'call_0' }]);
    expect(sessionOfToolCall(monitor, 'call_0')).toBeUndefined();
  });

  it('forgets the oldest calls beyond 10,000', () => {
    const monitor = {};
    rememberToolCalls(monitor, 's1', Array.from({ length: 10_005 }, (_, index) => ({ id: `call_${index}` })));
    expect(sessionOfToolCall(monitor, 'call_4')).toBeUndefined();
    expect(sessionOfToolCall(monitor, 'call_5')).toBe('s1');
    expect(sessionOfToolCall(monitor, 'call_10004')).toBe('s1');
  });
});
