import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createProvenanceLog, extractAtoms, normaliseText, normaliseUrl, type AtomOptions } from '../../src/facts/index.js';
import { normaliseText as oldNormaliseText, normaliseUrl as oldNormaliseUrl, extractAtoms as oracle } from './provenance-atoms-oracle.js';

// Pieces that make atoms, near-atoms and the separators around them, so random texts hit the patterns' edges.
const PIECES = [
  'a', 'Z', '0', '7', '42', '1,810.50', ' ', '  ', '\n', '\t', '\u00a0', '.', '..', ',', ';', ':', '@', '@@', '+', '-', '_', '%', '/', '//',
  '(', ')', '[', ']', '{', '}', '<', '>', '|', '\\', '`', '"', "'", '$', '€', '£', '¥', 'http://', 'HTTPS://', 'www.', 'WWW.',
  'example', 'Example.COM', '.com', '.io', '.txt', 'notes.txt', 'pay.example.com/i/3', 'bob@example.com', 'a.b@c.co.uk', '.x@y.org',
  'GB29 NWBK 6016 1331 9268 19', 'us133000000121212121212', 'DE10000000000000000000', '+1 (555) 123-4567', '4111111111111111',
  '2024-05-15', '12:30', '10.30', 'BK-004211', 'bk-12345', 'USD', ' eur', '%', ' nights', ' kg', 'hours', 'people', 'dollars',
  '$1.5,3kg', 'x1,2kg', '5%1,2%', '1,kg', '1,,2 usd', '.5,5 m', '_1,2g', '"Riverside  View"', "'it''s'", 'é', '\u2028', '\uD800', '0x', 'sub.domain-x.net:8080/path?q=1#f', 'https://x.com/a).',
];
const piecesText = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((parts) => parts.join(''));
const anyText = fc.oneof(piecesText, fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 100 }));
const options = fc.record(
  { idPatterns: fc.constantFrom([], [/\bBK-\d{6}\b/g], [/bk-\d+/gi, /x/]), maxChars: fc.integer({ min: 1, max: 400 }), maxAtoms: fc.integer({ min: 1, max: 30 }) },
  { requiredKeys: [] },
) as fc.Arbitrary<AtomOptions>;

describe('the optimised extractor returns exactly what the previous one did', () => {
  it('on random texts built from atoms, near-atoms and separators, with random bounds', () => {
    fc.assert(
      fc.property(anyText, options, (text, opts) => {
        expect(extractAtoms(text, opts)).toEqual(oracle(text, opts));
      }),
      { numRuns: 3000 },
    );
  });

  it('on long dense and adversarial texts (caps reached mid-pass)', () => {
    const dense = Array.from({ length: 3000 }, (_, i) => `Invoice ${i}: pay $${i}.50 to US13300000012121212${String(i % 10000).padStart(4, '0')}, mail billing${i % 500}@example.com, see https://pay.example.com/i/${i}. `).join('');
    const texts = [
      dense,
      'a.'.repeat(50_000),
      '@'.repeat(20_000) + 'x@y.com',
      '1 '.repeat(40_000),
      'www.'.repeat(10_000),
      `${'a'.repeat(5_000)}.com ${'b'.repeat(3_000)}@c.org`,
      '"'.repeat(10_000) + "'x'".repeat(3_000),
      'x.com/'.repeat(10_000),
      'https://x.com/?u=evil.com https://a.b/x=c.io https://a.com:d.io/ http://p.q.com/r.net-s.org@t.co',
      '$1'.repeat(20_000),
      '+1 (555) 123-4567 '.repeat(2_000),
    ];
    for (const text of texts) {
      for (const opts of [{}, { maxAtoms: 7 }, { maxChars: 30_001 }, { idPatterns: [/\bBK-\d{6}\b/g] }] as AtomOptions[]) {
        expect(extractAtoms(text, opts)).toEqual(oracle(text, opts));
      }
    }
  });

  it('the log indexes exactly the atoms the previous extractor found that a lookup can ask for, and counts a result past its cap', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 1, max: 30 }), (text, maxAtoms) => {
        const log = createProvenanceLog({ maxAtoms });
        log.recordToolResult('t', text, () => 'untrusted');
        // Quoted strings and amounts are never looked up: an argument is matched by the atoms that name something.
        const wanted = [...new Set(oracle(text, { maxAtoms: 10_000 }).atoms.filter((atom) => atom.kind !== 'quoted' && atom.kind !== 'quantity').map((atom) => atom.value))];
        const indexed = log.toJSON().occurrences.map(([atom]) => atom);
        if (wanted.length <= maxAtoms) {
          expect(indexed).toEqual(wanted);
          expect(log.overflowed).toBe(false);
        } else {
          expect(indexed).toEqual(wanted.slice(0, maxAtoms));
          expect(log.overflowed).toBe(true);
          expect(log.stats.truncated).toBe(1);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('normalises text and links exactly as before', () => {
    const spaces = fc.array(fc.constantFrom(' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2028', '\ufeff', 'a', 'B', 'é', 'x y'), { maxLength: 30 }).map((parts) => parts.join(''));
    fc.assert(fc.property(fc.oneof(spaces, anyText), (text) => { expect(normaliseText(text)).toBe(oldNormaliseText(text)); }), { numRuns: 3000 });
    fc.assert(fc.property(anyText, (text) => { expect(normaliseUrl(text)).toBe(oldNormaliseUrl(text)); }), { numRuns: 3000 });
  });
});
