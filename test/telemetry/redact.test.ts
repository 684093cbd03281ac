import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/index.js';

describe('redactSecrets', () => {
  it.each([
    ['Authorization: Bearer abc.def-ghi_jkl', 'Authorization: [REDACTED]'],
    ['{"Authorization":"Basic dXNlcjpwYXNz"}', '{"Authorization":"[REDACTED]"}'],
    ['curl -H "authorization: token ghp_abcdefghijklmnopqrstuvwxyz0123"', 'curl -H "authorization: [REDACTED]"'],
    ['sent with bearer eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl', 'sent with bearer [REDACTED]'],
    ['key sk-proj-abcdefghijklmnop1234 used', 'key [REDACTED] used'],
    ['{"api_key": "12345678"}', '{"api_key": "[REDACTED]"}'],
    ['x-api-key=abcd1234&q=1', 'x-api-key=[REDACTED]&q=1'],
    ['password: hunter2!', 'password: [REDACTED]'],
    ['AKIAIOSFODNN7EXAMPLE', '[REDACTED]'],
  ])('%s', (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it('leaves ordinary text alone', () => {
    const text = 'Refund of $42 for order A-1042; max_tokens: 512, 3 tokens left. The secret to good service is listening.';
    expect(redactSecrets(text)).toBe(text);
  });

  it('applies extra patterns, every occurrence', () => {
    expect(redactSecrets('ACME-1 and ACME-2', [/ACME-\d/g])).toBe('[REDACTED] and [REDACTED]');
  });
});
