import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inputTooLarge } from '../../src/limits/index.js';

describe('inputTooLarge', () => {
  it('counts UTF-8 bytes exactly as Node does, for any text (surrogate pairs and lone surrogates included)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const bytes = Buffer.byteLength(text, 'utf8');
        expect(inputTooLarge(text, bytes, 'workflow')).toBeUndefined();
        if (bytes > 0) expect(inputTooLarge(text, bytes - 1, 'workflow')?.bytes).toBe(bytes);
      }),
    );
  });
});
