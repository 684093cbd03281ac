import type { Embedder } from '../embed/index.js';

export interface FakeEmbedderOptions {
  /** Vectors for exact texts, so a test chooses similarities. */
  vectors?: Record<string, number[]>;
  /** Length of the vectors made up for texts not in `vectors`. @default 8 */
  dimensions?: number;
  /** Replaces the lookup entirely: return a vector, throw, or never resolve, to test failure paths. */
  embed?: (text: string) => number[] | Promise<number[]>;
}

/** An embedder for tests, which also records what it was asked. */
export interface FakeEmbedder extends Embedder {
  /** Every text embedded, in order. */
  readonly calls: string[];
}

/**
 * Creates an embedder whose vectors the test decides. Texts without a vector get a deterministic unit vector
 * derived from their hash, so unrelated texts are dissimilar and equal texts identical.
 * @example
 * const embedder = createFakeEmbedder({ vectors: { 'verify me': [1, 0], 'check my id': [0.99, 0.14] } });
 */
export function createFakeEmbedder({ vectors = {}, dimensions = 8, embed }: FakeEmbedderOptions = {}): FakeEmbedder {
  const calls: string[] = [];
  const one = async (text: string) => {
    calls.push(text);
    if (embed) return embed(text);
    return Object.hasOwn(vectors, text) ? [...vectors[text]!] : hashedUnitVector(text, dimensions);
  };
  return {
    calls,
    embedQuery: one,
    embedDocuments: (texts) => Promise.all(texts.map(one)),
  };
}

function hashedUnitVector(text: string, dimensions: number): number[] {
  let seed = 2166136261;
  for (let i = 0; i < text.length; i++) seed = Math.imul(seed ^ text.charCodeAt(i), 16777619);
  const vector = Array.from({ length: dimensions }, () => {
    seed = Math.imul(seed ^ (seed >>> 15), 2246822507) ^ Math.imul(seed ^ (seed >>> 13), 3266489909);
    return ((seed >>> 0) / 2 ** 32) * 2 - 1;
  });
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}
