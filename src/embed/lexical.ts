import { InvalidOptionError } from '../errors/index.js';
import type { SizedEmbedder } from './embedder.js';

/** Vector length of the lexical embedder: the same as all-MiniLM-L6-v2, so swapping embedders keeps index sizes. */
export const DEFAULT_LEXICAL_DIMENSIONS = 384;
/** Character n-gram length of the lexical embedder. */
export const DEFAULT_CHARACTER_NGRAM_SIZE = 3;
/** Longest prefix of a text the lexical embedder reads, so a 10 MB message costs bounded time. */
export const DEFAULT_LEXICAL_MAX_CHARACTERS = 8192;

/** Options of {@link createLexicalEmbedder}. */
export interface LexicalEmbedderOptions {
  /**
   * Vector length. Features are hashed into this many buckets; more buckets mean fewer collisions between unrelated
   * texts, at a proportional cost in memory and comparison time.
   * @default 384
   */
  dimensions?: number;
  /**
   * Length of the character n-grams (over lower-cased words separated by single spaces); 0 turns them off. They make
   * small edits (a typo, a changed number) cost little similarity.
   * @default 3
   */
  characterNgramSize?: number;
  /**
   * Whether consecutive word pairs are features too. They make word order count, so "refund then cancel" and
   * "cancel then refund" are close but not identical.
   * @default true
   */
  wordBigrams?: boolean;
  /**
   * Only the first this many characters are read.
   * @default 8192
   */
  maxCharacters?: number;
}

/** The dependency-free embedder returned by {@link createLexicalEmbedder}. */
export interface LexicalEmbedder extends SizedEmbedder {
  /** Embeds one text synchronously; `embedQuery` is this in a promise. */
  embedSync(text: string): number[];
}

// Feature weights: word features carry the meaning of "the same words", character n-grams the tolerance to small
// edits. A text of W words has about W unigrams, W bigrams and 5W trigrams, so half weight on trigrams keeps the
// two kinds of evidence of similar size.
const WORD_WEIGHT = 1;
const BIGRAM_WEIGHT = 1;
const CHARACTER_WEIGHT = 0.5;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const UNIGRAM_SEED = 0x9e3779b1;
const BIGRAM_SEED = 0x85ebca6b;
const CHARACTER_SEED = 0xc2b2ae35;
const SPACE = 0x20;
const NON_ASCII_WORD = /[\p{L}\p{N}\p{M}]/u;

/**
 * Creates a dependency-free embedder from hashed lexical features: word unigrams, word bigrams and character n-grams
 * of the lower-cased text, signed-hashed into `dimensions` buckets and L2-normalised. The same text always gives the
 * same vector, in any process.
 *
 * It catches near-verbatim repeats (the same sentence again, with a changed id or a typo), which is what loop
 * detection and exemplar matching need when no model is installed. It does not catch paraphrases: "I can't log in"
 * and "my password stopped working" share no features. Use {@link createTransformersEmbedder} (or any LangChain
 * embeddings) for meaning.
 * @param options See {@link LexicalEmbedderOptions}.
 * @throws {InvalidOptionError} when an option is out of range.
 * @example
 * const embedder = createLexicalEmbedder();
 * const [a, b] = await embedder.embedDocuments(['Order 1234 is delayed', 'Order 1235 is delayed']);
 * cosineSimilarity(a, b); // 0.68: a short sentence with another number; 'Order 1234 is delayed' again gives 1
 */
export function createLexicalEmbedder({
  dimensions = DEFAULT_LEXICAL_DIMENSIONS,
  characterNgramSize = DEFAULT_CHARACTER_NGRAM_SIZE,
  wordBigrams = true,
  maxCharacters = DEFAULT_LEXICAL_MAX_CHARACTERS,
}: LexicalEmbedderOptions = {}): LexicalEmbedder {
  assertInteger('dimensions', dimensions, 1, 1 << 20, 'Pass a positive integer such as 384.');
  assertInteger('characterNgramSize', characterNgramSize, 0, 16, 'Pass an integer from 0 (off) to 16; 3 works well.');
  assertInteger('maxCharacters', maxCharacters, 1, Number.MAX_SAFE_INTEGER, 'Pass a positive integer such as 8192.');
  if (typeof wordBigrams !== 'boolean') {
    throw new InvalidOptionError({ parameter: 'wordBigrams', value: wordBigrams, fix: 'Pass true or false.' });
  }
  // One accumulator per embedder: embedding is synchronous, so calls never interleave.
  const accumulator = new Float64Array(dimensions);
  const window = new Int32Array(Math.max(1, characterNgramSize));

  const add = (hash: number, weight: number) => {
    const mixed = finalize(hash);
    // Signed hashing: a collision between unrelated features cancels on average instead of adding similarity.
    accumulator[(mixed >>> 1) % dimensions]! += mixed & 1 ? weight : -weight;
  };

  const embedSync = (text: string): number[] => {
    accumulator.fill(0);
    const lower = (text.length > maxCharacters ? text.slice(0, maxCharacters) : text).toLowerCase();
    let previousWord = 0;
    let hasPrevious = false;
    let emitted = 0;
    const emit = (code: number) => {
      if (characterNgramSize === 0) return;
      window[emitted % characterNgramSize] = code;
      emitted++;
      if (emitted < characterNgramSize) return;
      let hash = FNV_OFFSET ^ CHARACTER_SEED;
      for (let k = emitted - characterNgramSize; k < emitted; k++) hash = Math.imul(hash ^ window[k % characterNgramSize]!, FNV_PRIME);
      add(hash, CHARACTER_WEIGHT);
    };
    emit(SPACE);
    let i = 0;
    while (i < lower.length) {
      if (!isWordCode(lower, i)) {
        i++;
        continue;
      }
      let word = FNV_OFFSET;
      while (i < lower.length && isWordCode(lower, i)) {
        const code = lower.charCodeAt(i);
        word = Math.imul(word ^ code, FNV_PRIME);
        emit(code);
        i++;
      }
      emit(SPACE);
      add(word ^ UNIGRAM_SEED, WORD_WEIGHT);
      if (wordBigrams && hasPrevious) add(Math.imul(previousWord, BIGRAM_SEED) ^ word, BIGRAM_WEIGHT);
      previousWord = word;
      hasPrevious = true;
    }
    return toNormalizedArray(accumulator);
  };

  return {
    dimensions,
    embedSync,
    embedQuery: async (text) => embedSync(text),
    embedDocuments: async (texts) => texts.map(embedSync),
  };
}

/** Letters, digits and combining marks make words; surrogate halves count as word characters so emoji stay whole. */
function isWordCode(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  if (code < 0x80) return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x5f;
  if (code >= 0xd800 && code <= 0xdfff) return true;
  return NON_ASCII_WORD.test(text[index]!);
}

/** MurmurHash3's finaliser: FNV alone leaves the low bits of short inputs poorly mixed. */
function finalize(hash: number): number {
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

function toNormalizedArray(values: Float64Array): number[] {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]! * values[i]!;
  const scale = sum === 0 ? 0 : 1 / Math.sqrt(sum);
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i]! * scale;
  return out;
}

function assertInteger(parameter: string, value: number, min: number, max: number, fix: string): void {
  if (!Number.isInteger(value) || value < min || value > max) throw new InvalidOptionError({ parameter, value, fix });
}
