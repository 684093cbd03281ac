import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeQuoteText, verifyCitations } from '../../src/index.js';

const policy = { source: 'policy.md', text: 'Section 2.1: MRI is covered when the member has had low back pain\nfor at least six weeks.' };

describe('verifyCitations', () => {
  it('verifies a quote that occurs with other whitespace, case and typographic quotes', () => {
    const citation = { source: 'policy.md', quote: 'MRI IS   covered when the member has had low back pain for at least six weeks' };
    expect(verifyCitations([citation], [policy])).toEqual({ verified: [citation], rejected: [] });
    expect(verifyCitations([{ source: 'p', quote: 'member’s' }], [{ source: 'p', text: "the member's plan" }]).verified).toHaveLength(1);
  });
  it('rejects a quote that occurs nowhere, and an empty one, saying why', () => {
    expect(verifyCitations([{ source: 'policy.md', quote: 'MRI is always covered' }, { source: 'policy.md', quote: '  ' }], [policy]).rejected).toEqual([
      { source: 'policy.md', quote: 'MRI is always covered', reason: 'quote_not_found' },
      { source: 'policy.md', quote: '  ', reason: 'empty_quote' },
    ]);
  });
  it('keeps the found document as the source when the model named another', () => {
    expect(verifyCitations([{ source: 'made-up.md', quote: 'six weeks' }], [policy]).verified).toEqual([{ source: 'policy.md', quote: 'six weeks' }]);
  });
  it('verifies every substring of a document, however it is spaced and cased (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), fc.nat(), fc.nat(), fc.boolean(), (text, a, b, upper) => {
        const start = a % text.length;
        const end = start + 1 + (b % (text.length - start));
        const quote = text.slice(start, end);
        fc.pre(normalizeQuoteText(quote).length > 0 && normalizeQuoteText(text).includes(normalizeQuoteText(quote)));
        const spaced = (upper ? quote.toUpperCase() : quote).replace(/ /g, ' \n ');
        return verifyCitations([{ source: 's', quote: spaced }], [{ source: 's', text }]).verified.length === (normalizeQuoteText(text).includes(normalizeQuoteText(spaced)) ? 1 : 0);
      }),
      { numRuns: 500 },
    );
  });
});
