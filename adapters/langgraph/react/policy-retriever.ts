import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Document, type DocumentInterface } from '@langchain/core/documents';
import type { EmbeddingsInterface } from '@langchain/core/embeddings';
import { BaseRetriever } from '@langchain/core/retrievers';
import MiniSearch from 'minisearch';
import { createVectorIndex, DEFAULT_MAX_CHUNK_CHARS, InvalidOptionError, policySourceNames, splitPolicy, type HnswOptions, type PolicyChunk, type VectorIndex, type VectorIndexKind, type VectorIndexLogger } from '../../../src/index.js';

/**
 * A policy to index: a file path (Markdown by `.md`/`.markdown`, else plain text), a `{ source, text }` pair, or a
 * LangChain document (its `metadata.source` names it).
 */
export type PolicySource = string | URL | { source: string; text: string; format?: 'markdown' | 'text' } | DocumentInterface;

/** Options of {@link policyRetriever}. */
export interface PolicyRetrieverOptions {
  /** Chunks returned per search. @default 4 */
  k?: number;
  /** Longest chunk in characters; a longer section is cut between paragraphs. @default 1200 */
  maxChunkChars?: number;
  /**
   * Search by meaning instead of by words: any LangChain embeddings (`OpenAIEmbeddings`, a local model). The
   * chunks are embedded once, at the first search, into a vector index (`index`).
   * @default full-text search (MiniSearch, fuzzy and by prefix)
   */
  embeddings?: EmbeddingsInterface;
  /** With `embeddings`: `hnsw` (`hnswlib-node`, an optional peer dependency; exact search with a warning without it), `brute-force` or `auto`. @default 'hnsw' */
  index?: VectorIndexKind | 'auto';
  /** With `index: 'hnsw'`: the graph's tuning. */
  hnsw?: HnswOptions;
  /** Where a missing `hnswlib-node` is reported. @default console */
  logger?: VectorIndexLogger;
}

/** Chunks returned per search unless told otherwise. */
export const DEFAULT_POLICY_K = 4;

/**
 * A LangChain retriever over a policy's sections: what {@link policyRetriever} returns. `documents` holds every
 * chunk, with `metadata.source`, `metadata.section` (the heading path) and `metadata.startLine`/`endLine`.
 */
export class PolicySectionRetriever extends BaseRetriever {
  static override lc_name() {
    return 'PolicySectionRetriever';
  }
  override lc_namespace = ['panoptes', 'retrievers'];
  /** Every chunk of the policy, in document order. */
  readonly documents: Document[];
  private readonly search: (query: string) => Promise<Document[]>;

  constructor(documents: Document[], search: (query: string) => Promise<Document[]>) {
    super({});
    this.documents = documents;
    this.search = search;
  }

  override async _getRelevantDocuments(query: string): Promise<Document[]> {
    return this.search(query);
  }
}

/**
 * A retriever over written policies, for `createVerificationGraph({ retriever })` or any LangChain chain. Markdown
 * is cut by its headings (a long section into several chunks), and each chunk names its section by the path of
 * headings above it, so a verified citation names a section a reviewer can open. Searches are full-text
 * (MiniSearch: fuzzy, by prefix, the heading path weighing more), or by meaning with `embeddings` (an HNSW index).
 * Files are read at once, so a missing one fails here rather than at the first search.
 * @throws {InvalidOptionError} when a file cannot be read, there is no policy text at all, or an option is out of range.
 * @example
 * const retriever = policyRetriever(['policies/travel.md'], { k: 4 });
 * const verifier = createVerificationGraph({ model, retriever, searchTool: { description: 'Search the travel and expense policy.' } });
 */
export function policyRetriever(sources: PolicySource | readonly PolicySource[], options: PolicyRetrieverOptions = {}): PolicySectionRetriever {
  const { k = DEFAULT_POLICY_K, maxChunkChars = DEFAULT_MAX_CHUNK_CHARS, embeddings, index = 'hnsw', hnsw, logger } = options;
  if (!(Number.isInteger(k) && k > 0)) throw new InvalidOptionError({ parameter: 'k', value: k, fix: 'Pass a whole number above 0; the default is 4.' });
  if (!(Number.isInteger(maxChunkChars) && maxChunkChars >= 100)) throw new InvalidOptionError({ parameter: 'maxChunkChars', value: maxChunkChars, fix: 'Pass a whole number of at least 100; the default is 1200.' });
  const list = (Array.isArray(sources) ? sources : [sources]) as readonly PolicySource[];
  const chunks = readPolicies(list).flatMap(({ source, text, format }) => splitPolicy(text, { source, format, maxChunkChars }));
  if (chunks.length === 0) throw new InvalidOptionError({ parameter: 'sources', value: list.length === 0 ? [] : 'policies with no text', fix: 'Pass at least one policy file or text with something in it.' });
  const documents = chunks.map((chunk, id) => toDocument(chunk, id));
  const search = embeddings ? vectorSearch(documents, embeddings, { k, kind: index, ...(hnsw ? { hnsw } : {}), ...(logger ? { logger } : {}) }) : fullTextSearch(documents, k);
  return new PolicySectionRetriever(documents, remembered(search));
}

/** Distinct queries whose answers a retriever keeps. */
const REMEMBERED_QUERIES = 256;

/**
 * The search with its latest answers kept: a job asks the same questions of an index that never changes (every case
 * searched with a criterion's words), and a fuzzy full-text search or a query embedding costs far more than a lookup.
 */
function remembered(search: (query: string) => Promise<Document[]>): (query: string) => Promise<Document[]> {
  const answers = new Map<string, Promise<Document[]>>();
  return (query) => {
    const key = String(query);
    const known = answers.get(key);
    if (known) {
      answers.delete(key);
      answers.set(key, known);
      return known.then((documents) => [...documents]);
    }
    const answer = search(key);
    answers.set(key, answer);
    answer.catch(() => answers.delete(key));
    if (answers.size > REMEMBERED_QUERIES) answers.delete(answers.keys().next().value!);
    return answer.then((documents) => [...documents]);
  };
}

function toDocument(chunk: PolicyChunk, id: number): Document {
  const { text, ...metadata } = chunk;
  return new Document({ pageContent: text, metadata, id: String(id) });
}

/** The text of each source, with its name and format. */
function readPolicies(list: readonly PolicySource[]): Array<{ source: string; text: string; format: 'markdown' | 'text' }> {
  const paths = list.flatMap((entry) => (typeof entry === 'string' ? [entry] : entry instanceof URL ? [fileURLToPath(entry)] : []));
  const names = policySourceNames(paths);
  let next = 0;
  return list.map((entry, position) => {
    if (typeof entry === 'string' || entry instanceof URL) {
      const path = typeof entry === 'string' ? entry : fileURLToPath(entry);
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new InvalidOptionError({ parameter: `sources[${position}]`, value: path, fix: code === 'ENOENT' ? 'No such file: check the path.' : `It cannot be read (${code ?? (error as Error).message}).` });
      }
      return { source: names[next++]!, text, format: formatOf(path) };
    }
    if ('pageContent' in entry) {
      const source = String(entry.metadata?.source ?? `document-${position + 1}`);
      return { source, text: String(entry.pageContent), format: formatOf(source) };
    }
    if (typeof entry?.source !== 'string' || typeof entry.text !== 'string') throw new InvalidOptionError({ parameter: `sources[${position}]`, value: entry, fix: 'Pass a file path, { source, text }, or a LangChain Document.' });
    return { source: entry.source, text: entry.text, format: entry.format ?? formatOf(entry.source) };
  });
}

/** Markdown unless the name ends in an extension of plain text. */
function formatOf(name: string): 'markdown' | 'text' {
  return ['.txt', '.text'].includes(extname(name).toLowerCase()) ? 'text' : 'markdown';
}

function fullTextSearch(documents: Document[], k: number): (query: string) => Promise<Document[]> {
  const index = new MiniSearch<{ id: number; text: string; section: string }>({ fields: ['text', 'section'], storeFields: [] });
  index.addAll(documents.map((document, id) => ({ id, text: document.pageContent, section: String(document.metadata.section ?? '') })));
  return async (query) =>
    index
      .search(String(query), { fuzzy: 0.2, prefix: true, combineWith: 'OR', boost: { section: 1.5 } })
      .slice(0, k)
      .map((hit) => documents[hit.id as number]!);
}

function vectorSearch(documents: Document[], embeddings: EmbeddingsInterface, { k, kind, hnsw, logger }: { k: number; kind: VectorIndexKind | 'auto'; hnsw?: HnswOptions; logger?: VectorIndexLogger }): (query: string) => Promise<Document[]> {
  let built: Promise<VectorIndex> | undefined;
  const build = async () => {
    const vectors = await embeddings.embedDocuments(documents.map((document) => (document.metadata.section ? `${document.metadata.section}\n${document.pageContent}` : document.pageContent)));
    if (vectors.length !== documents.length || !vectors[0]) throw new Error(`the embeddings returned ${vectors.length} vectors for ${documents.length} chunks`);
    const index = createVectorIndex({ dimensions: vectors[0].length, kind, ...(hnsw ? { hnsw } : {}), ...(logger ? { logger } : {}) });
    vectors.forEach((vector, id) => index.add(String(id), vector));
    return index;
  };
  return async (query) => {
    // A failed build is not kept: the next search tries again (the verifier reports this one as retrieval_error).
    built ??= build().catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    const index = await built;
    return index.search(await embeddings.embedQuery(String(query)), k).map((match) => documents[Number(match.id)]!);
  };
}
