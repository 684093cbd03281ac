/** `normaliseToolName`: the spellings of one tool name that a lax lookup (or a reader) takes for the same name. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normaliseToolName } from '../../src/index.js';

describe('normaliseToolName', () => {
  it.each([
    ['issue_refund', 'issue_refund'],
    ['Issue_Refund', 'issue_refund'],
    ['  issue_refund\t', 'issue_refund'],
    ['\u00a0issue_refund\u3000', 'issue_refund'], // no-break and ideographic spaces
    ['issue_refund\u0000', 'issue_refund'],
    ['issue\u200b_re\u200dfund\ufeff', 'issue_refund'], // zero-width space and joiner, BOM
    ['\u202eissue_refund', 'issue_refund'], // a bidi override
    ['\u0456ssue_r\u0435fund', 'issue_refund'], // Cyrillic i and e
    ['ISSUE_R\u0415FUND', 'issue_refund'], // a Cyrillic capital E
    ['\u03bfrder', 'order'], // a Greek omicron
    ['\uff49ssue_\uff52efund', 'issue_refund'], // fullwidth letters
    ['stra\u00dfe', 'strasse'], // full case folding
  ])('%j is %j', (name, normalised) => {
    expect(normaliseToolName(name)).toBe(normalised);
  });

  it('keeps names apart that differ in more than spelling', () => {
    expect(normaliseToolName('issue_refund')).not.toBe(normaliseToolName('issue-refund'));
    expect(normaliseToolName('refund2')).not.toBe(normaliseToolName('refund'));
  });

  it('is idempotent where case folding makes a look-alike (regression: ᾀ folds to ἀι, ẞ to ß)', () => {
    for (const name of ['ᾀ', 'ᾼ', 'ͅ', 'ẞ']) expect(normaliseToolName(normaliseToolName(name))).toBe(normaliseToolName(name));
  });

  it('is idempotent (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 24 }), (name) => {
        const once = normaliseToolName(name);
        expect(normaliseToolName(once)).toBe(once);
      }),
      { numRuns: 500 },
    );
  });
});
