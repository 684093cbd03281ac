/** Seeded random vectors, so recall numbers are the same in every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Gaussian-ish vectors (sum of uniforms), the hard case for HNSW: no cluster structure to exploit. */
export function randomVectors(count: number, dimensions: number, seed = 1): number[][] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => Array.from({ length: dimensions }, () => random() + random() + random() - 1.5));
}

/** Vectors around `clusters` centres, closer to what sentence embeddings of a workflow's exemplars look like. */
export function clusteredVectors(count: number, dimensions: number, clusters: number, seed = 1): number[][] {
  const random = seededRandom(seed);
  const centres = randomVectors(clusters, dimensions, seed + 1);
  return Array.from({ length: count }, (_, i) => centres[i % clusters]!.map((value) => value + (random() - 0.5) * 0.8));
}
