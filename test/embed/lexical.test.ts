import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cosineSimilarity, createLexicalEmbedder, DEFAULT_LEXICAL_DIMENSIONS } from '../../src/embed/index.js';
import { InvalidOptionError } from '../../src/errors/index.js';

const embedder = createLexicalEmbedder();
const similarity = (a: string, b: string) => cosineSimilarity(embedder.embedSync(a), embedder.embedSync(b));
const norm = (vector: number[]) => Math.hypot(...vector);

describe('createLexicalEmbedder', () => {
  it('returns unit-length vectors of the configured length', async () => {
    const vector = await embedder.embedQuery('I will verify your identity before changing the booking.');
    expect(vector).toHaveLength(DEFAULT_LEXICAL_DIMENSIONS);
    expect(embedder.dimensions).toBe(384);
    expect(norm(vector)).toBeCloseTo(1, 10);
    expect(createLexicalEmbedder({ dimensions: 64 }).embedSync('hello world')).toHaveLength(64);
  });

  it('is deterministic across calls and instances, with a fixed vector for a fixed text', () => {
    const text = 'Refund issued for order 1234.';
    expect(embedder.embedSync(text)).toEqual(createLexicalEmbedder().embedSync(text));
    // Hashes are computed by this code, not by the platform: pin a few components so a change is noticed.
    const vector = createLexicalEmbedder({ dimensions: 16 }).embedSync('hello world');
    expect(vector.map((x) => Math.round(x * 1000))).toMatchInlineSnapshot(`
      [
        0,
        0,
        0,
        0,
        209,
        209,
        -209,
        0,
        -417,
        209,
        209,
        417,
        0,
        209,
        0,
        626,
      ]
    `);
  });

  it('gives the zero vector for a text without words', () => {
    expect(embedder.embedSync('').every((x) => x === 0)).toBe(true);
    expect(norm(embedder.embedSync('  ... !!! '))).toBe(0);
  });

  it('puts near-verbatim repeats close together', () => {
    expect(similarity('I will now verify your identity before making changes.', 'I will now verify your identity before making any changes.')).toBeGreaterThan(0.85);
    expect(similarity('Searching flights from NYC to LAX on May 3', 'Searching flights from NYC to LAX on May 4')).toBeGreaterThan(0.8);
    expect(similarity('Let me look up your reservation.', 'let me look up your reservation')).toBeCloseTo(1, 10);
    expect(similarity('Let me look up your reservation.', 'Let me look up your reservaton.')).toBeGreaterThan(0.75);
  });

  it('keeps unrelated texts far apart', () => {
    expect(similarity('I will now verify your identity before making changes.', 'The weather in Paris is sunny today.')).toBeLessThan(0.2);
    expect(similarity('cancel my subscription', 'what is the capital of France')).toBeLessThan(0.2);
  });

  it('does not catch paraphrases (documented limitation)', () => {
    expect(similarity("I can't log in", 'my password stopped working')).toBeLessThan(0.2);
  });

  it('makes word order count through bigrams, a little', () => {
    const swapped = similarity('refund then cancel the order', 'cancel then refund the order');
    expect(swapped).toBeLessThan(0.99);
    expect(swapped).toBeGreaterThan(0.6);
    const unordered = createLexicalEmbedder({ wordBigrams: false, characterNgramSize: 0 });
    expect(cosineSimilarity(unordered.embedSync('refund then cancel'), unordered.embedSync('cancel then refund'))).toBeCloseTo(1, 10);
  });

  it('handles non-Latin text and emoji', () => {
    const vector = embedder.embedSync('Привет, мир! 你好世界 🙂 café');
    expect(norm(vector)).toBeCloseTo(1, 10);
    expect(similarity('Привет, мир!', 'привет мир')).toBeCloseTo(1, 10);
    expect(similarity('Привет, мир!', 'До свидания')).toBeLessThan(0.3);
  });

  it('reads only the first maxCharacters characters, so a 10 MB text costs bounded time', () => {
    const prefix = 'agent repeats itself '.repeat(400);
    const huge = prefix + 'x'.repeat(10_000_000);
    const bounded = createLexicalEmbedder({ maxCharacters: prefix.length });
    const start = performance.now();
    const vector = bounded.embedSync(huge);
    expect(performance.now() - start).toBeLessThan(500);
    expect(vector).toEqual(bounded.embedSync(prefix));
    expect(norm(embedder.embedSync(huge))).toBeCloseTo(1, 10);
  });

  it('embeds documents exactly as queries', async () => {
    const texts = ['one', 'two words', ''];
    expect(await embedder.embedDocuments(texts)).toEqual(texts.map((text) => embedder.embedSync(text)));
    expect(await embedder.embedDocuments([])).toEqual([]);
  });

  it('returns finite vectors of unit or zero length for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const vector = embedder.embedSync(text);
        expect(vector).toHaveLength(384);
        expect(vector.every(Number.isFinite)).toBe(true);
        const length = norm(vector);
        expect(length === 0 || Math.abs(length - 1) < 1e-9).toBe(true);
      }),
    );
  });

  it('gives similarity 1 to a text and its repetition with different spacing and case', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z0-9]{1,8}$/), { minLength: 1, maxLength: 12 }), (words) => {
        expect(similarity(words.join(' '), `  ${words.join('   ').toUpperCase()}\n`)).toBeCloseTo(1, 9);
      }),
    );
  });

  it.each([
    [{ dimensions: 0 }, 'dimensions'],
    [{ dimensions: 1.5 }, 'dimensions'],
    [{ characterNgramSize: -1 }, 'characterNgramSize'],
    [{ maxCharacters: 0 }, 'maxCharacters'],
    [{ wordBigrams: 'yes' as unknown as boolean }, 'wordBigrams'],
  ])('rejects %j at construction', (options, parameter) => {
    expect(() => createLexicalEmbedder(options)).toThrow(InvalidOptionError);
    expect(() => createLexicalEmbedder(options)).toThrow(expect.objectContaining({ parameter }));
  });
});
