import { readFileSync } from 'node:fs';
import { Document } from '@langchain/core/documents';
import MiniSearch from 'minisearch';

/** The example policy, one document per numbered clause, with its section: what a real retriever would return. */
export function policyDocuments(path = new URL('./policy.md', import.meta.url)): Document[] {
  const documents: Document[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const clause = /^(\d+\.\d+)\s+(.*)$/.exec(line.trim());
    if (clause) documents.push(new Document({ pageContent: `${clause[1]} ${clause[2]}`, metadata: { source: 'imaging-policy.md', section: clause[1] } }));
  }
  return documents;
}

/** A full-text retriever over the example policy: the `k` clauses that best match the query (MiniSearch, fuzzy). */
export function policyRetriever({ k = 2, documents = policyDocuments() }: { k?: number; documents?: Document[] } = {}) {
  const index = new MiniSearch<{ id: number; text: string }>({ fields: ['text'] });
  index.addAll(documents.map((document, id) => ({ id, text: document.pageContent })));
  return async (query: string): Promise<Document[]> => index.search(query, { fuzzy: 0.2, prefix: true }).slice(0, k).map((hit) => documents[hit.id as number]!);
}
