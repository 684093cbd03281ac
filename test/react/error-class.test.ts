import { describe, expect, it } from 'vitest';
import { classifyModelError, isTransientModelError } from '../../src/index.js';

const withStatus = (status: number) => Object.assign(new Error(`HTTP ${status}`), { status });

describe('classifyModelError', () => {
  it.each([429, 500, 502, 503, 504, 408])('calls HTTP %i transient', (status) => expect(classifyModelError(withStatus(status))).toBe('transient'));
  it.each([400, 401, 403, 404, 422])('calls HTTP %i permanent', (status) => expect(classifyModelError(withStatus(status))).toBe('permanent'));
  it('reads the status where fetch-based SDKs put it', () => {
    expect(classifyModelError({ response: { status: 503 } })).toBe('transient');
    expect(classifyModelError({ statusCode: 401 })).toBe('permanent');
  });
  it('calls timeouts and network failures transient, also when wrapped as a cause', () => {
    expect(classifyModelError(Object.assign(new Error('took too long'), { name: 'NodeTimeoutError' }))).toBe('transient');
    expect(classifyModelError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe('transient');
    expect(classifyModelError(new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) }))).toBe('transient');
  });
  it('calls refusals, schema errors and unknown errors permanent', () => {
    expect(classifyModelError(Object.assign(new Error('refused'), { name: 'ContentFilterFinishReasonError' }))).toBe('permanent');
    expect(classifyModelError(Object.assign(new Error('bad schema'), { name: 'ZodError' }))).toBe('permanent');
    expect(classifyModelError(new Error('something odd'))).toBe('permanent');
    expect(classifyModelError('a string')).toBe('permanent');
    expect(isTransientModelError(withStatus(429))).toBe(true);
  });
});
