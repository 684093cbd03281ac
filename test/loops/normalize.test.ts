import { describe, expect, it } from 'vitest';
import { DEFAULT_VOLATILE_PATTERNS, VOLATILE_PLACEHOLDER } from '../../src/loops/index.js';
import { comparableText, createVolatileNormalizer } from '../../src/loops/normalize.js';

const normalize = createVolatileNormalizer(DEFAULT_VOLATILE_PATTERNS);

describe('volatile values', () => {
  it.each([
    ['request 3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b failed', `request ${VOLATILE_PLACEHOLDER} failed`],
    ['at 2026-01-01T10:00:03Z', `at ${VOLATILE_PLACEHOLDER}`],
    ['at 2026-01-01 10:00:03.123+02:00 local', `at ${VOLATILE_PLACEHOLDER} local`],
    ['epoch 1767225600000 ms', `epoch ${VOLATILE_PLACEHOLDER} ms`],
    ['trace 5f2a9c0e7b3d4a1f8e6c2b0a9d8f7e6c', `trace ${VOLATILE_PLACEHOLDER}`],
  ])('replaces %j', (text, expected) => {
    expect(normalize(text)).toBe(expected);
  });

  it.each(['booking 4711', 'order A-1234', 'date 2026-01-01', 'word deadbeefcafe', 'phone 0612345678'])('keeps %j, which may be what distinguishes two calls', (text) => {
    expect(normalize(text)).toBe(text);
  });

  it('applies a pattern written without the g flag everywhere', () => {
    expect(createVolatileNormalizer([/tick-\d+/])('tick-1 and tick-2')).toBe(`${VOLATILE_PLACEHOLDER} and ${VOLATILE_PLACEHOLDER}`);
  });

  it('collapses whitespace and bounds the compared length', () => {
    expect(comparableText('  a \n\n b\t', (text) => text)).toBe('a b');
    const long = comparableText('x'.repeat(100_000), (text) => text);
    expect(long.length).toBeLessThan(70_000);
    expect(long).not.toBe(comparableText('x'.repeat(100_001), (text) => text));
  });
});
