import type { Embedder } from '../embed/index.js';
import { createVectorIndex, type VectorIndex } from '../vector-index/index.js';
import type { Workflow } from '../workflow/index.js';
import { preferValid } from './prefer-valid.js';
import type { ClassificationResult } from './types.js';

/** Scores this close to the best count as a tie, which the workflow's valid moves then break. */
export const EXEMPLAR_TIE_MARGIN = 0.02;
/** How many nearest exemplars a lookup reads; enough to see near-ties between states. */
const NEIGHBOURS = 8;

/** A workflow's exemplars, embedded once by one embedder. */
export interface ExemplarIndex {
  readonly size: number;
  /** Exemplar texts and their states, by index id. */
  lookup(vector: readonly number[]): Array<{ state: string; exemplar: string; similarity: number }>;
}

const cache = new WeakMap<Workflow, WeakMap<Embedder, Promise<ExemplarIndex>>>();

/**
 * The workflow's exemplar index for `embedder`, built on first use and shared afterwards. A failed build is not cached, so a later call retries.
 */
export function exemplarIndex(workflow: Workflow, embedder: Embedder): Promise<ExemplarIndex> {
  let byEmbedder = cache.get(workflow);
  if (!byEmbedder) cache.set(workflow, (byEmbedder = new WeakMap()));
  let index = byEmbedder.get(embedder);
  if (!index) {
    index = buildIndex(workflow, embedder);
    byEmbedder.set(embedder, index);
    index.catch(() => byEmbedder.delete(embedder));
  }
  return index;
}

async function buildIndex(workflow: Workflow, embedder: Embedder): Promise<ExemplarIndex> {
  const entries = workflow.definition.states.flatMap((state) => state.classification.exemplars.map((exemplar) => ({ state: state.name, exemplar })));
  if (entries.length === 0) return { size: 0, lookup: () => [] };
  const vectors = await embedder.embedDocuments(entries.map((entry) => entry.exemplar));
  const index: VectorIndex = createVectorIndex({ dimensions: vectors[0]!.length });
  vectors.forEach((vector, id) => index.add(String(id), vector));
  return {
    size: entries.length,
    lookup: (vector) => index.search(vector, Math.min(NEIGHBOURS, entries.length)).map(({ id, similarity }) => ({ ...entries[Number(id)]!, similarity })),
  };
}

/**
 * The tier-3 result: the most similar exemplar whose state's `min_similarity` it reaches; near-ties (within
 * {@link EXEMPLAR_TIE_MARGIN}) go to a valid move.
 */
export function classifyExemplars(workflow: Workflow, index: ExemplarIndex, vector: readonly number[], currentState: string): ClassificationResult | undefined {
  const candidates = index.lookup(vector).filter(({ state, similarity }) => similarity >= workflow.state(state)!.classification.minSimilarity);
  if (candidates.length === 0) return undefined;
  const best = candidates[0]!.similarity;
  const tied = candidates.filter((candidate) => best - candidate.similarity <= EXEMPLAR_TIE_MARGIN);
  const state = preferValid(workflow, currentState, [...new Set(tied.map((candidate) => candidate.state))]);
  const chosen = tied.find((candidate) => candidate.state === state)!;
  return { state, method: 'embedding', confidence: chosen.similarity, evidence: { kind: 'exemplar', exemplar: chosen.exemplar, similarity: chosen.similarity } };
}
