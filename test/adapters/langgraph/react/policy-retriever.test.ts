import { fileURLToPath } from 'node:url';
import { Document } from '@langchain/core/documents';
import { fakeModel } from '@langchain/core/testing';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { describe, expect, it } from 'vitest';
import { createVerificationGraph, DEFAULT_SEARCH_DESCRIPTION, policyRetriever, PolicySectionRetriever } from '../../../../adapters/langgraph/index.js';
import { hnswAvailability, InvalidOptionError } from '../../../../src/index.js';
import { calls, noWait } from './helpers.js';

const TRAVEL = fileURLToPath(new URL('../../../../examples/verification/expenses/travel-policy.md', import.meta.url));
const RECEIPTS = 'Travel and Expense Policy > 2. Receipts > 2.1 When a receipt is required';
const ALCOHOL = 'Travel and Expense Policy > 5. Meals > 5.2 Alcohol';

/** Embeddings of a bag of words hashed into 256 dimensions: enough meaning for a test, no model. */
const bagOfWords = {
  embed(text: string): number[] {
    const vector = new Array<number>(256).fill(0);
    for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
      let hash = 7;
      for (const character of word) hash = (hash * 31 + character.charCodeAt(0)) % 256;
      vector[hash]! += 1;
    }
    return vector;
  },
  async embedDocuments(texts: string[]) {
    this.documentCalls++;
    return texts.map((text) => this.embed(text));
  },
  async embedQuery(text: string) {
    return this.embed(text);
  },
  documentCalls: 0,
};

describe('policyRetriever', () => {
  it('indexes a Markdown file by section and finds the section a query is about', async () => {
    const retriever = policyRetriever(TRAVEL, { k: 2 });
    expect(retriever).toBeInstanceOf(PolicySectionRetriever);
    expect(retriever.documents.map((document) => document.metadata.section)).toContain(RECEIPTS);
    const [first] = await retriever.invoke('itemised receipt for expenses over 25 USD');
    expect(first!.metadata).toMatchObject({ source: 'travel-policy.md', section: RECEIPTS, startLine: 13, endLine: 13 });
    expect(first!.pageContent).toBe('Every expense of 25 USD or more must be supported by an itemised receipt. A card statement or a booking confirmation without the items is not a receipt.');
    expect(await retriever.invoke('business class flight')).toHaveLength(2); // k
    expect(await retriever.invoke('zzzz qqqq')).toEqual([]);
  });

  it('takes texts and LangChain documents as well as files, plain text cut by paragraphs', async () => {
    const retriever = policyRetriever([{ source: 'meals.md', text: '## Meals\nAlcohol is never reimbursed.' }, new Document({ pageContent: 'Rule one.\n\nRule two about taxis.', metadata: { source: 'rules.txt' } })]);
    expect(retriever.documents.map((document) => [document.metadata.source, document.metadata.section, document.pageContent])).toEqual([
      ['meals.md', 'Meals', 'Alcohol is never reimbursed.'],
      ['rules.txt', undefined, 'Rule one.\n\nRule two about taxis.'],
    ]);
    expect((await retriever.invoke('taxis'))[0]!.metadata.source).toBe('rules.txt');
  });

  it('refuses a missing file, an empty policy and a bad k at construction', () => {
    expect(() => policyRetriever('no/such/policy.md')).toThrow(InvalidOptionError);
    expect(() => policyRetriever('no/such/policy.md')).toThrow(/No such file/);
    expect(() => policyRetriever({ source: 'empty.md', text: '\n\n' })).toThrow(/no text/);
    expect(() => policyRetriever(TRAVEL, { k: 0 })).toThrow(InvalidOptionError);
  });

  it('searches by meaning with embeddings in an HNSW index (or exact search), embedding the chunks once', async () => {
    bagOfWords.documentCalls = 0;
    const warnings: string[] = [];
    const retriever = policyRetriever(TRAVEL, { k: 1, embeddings: bagOfWords, logger: { warn: (message) => warnings.push(message) } });
    expect((await retriever.invoke('are alcoholic drinks reimbursed'))[0]!.metadata.section).toBe(ALCOHOL);
    expect((await retriever.invoke('an expense supported by an itemised receipt'))[0]!.metadata.section).toBe(RECEIPTS);
    expect(bagOfWords.documentCalls).toBe(1);
    // without hnswlib-node the index says why and searches exactly
    expect(warnings).toHaveLength(hnswAvailability().available ? 0 : 1);
    const exact = policyRetriever(TRAVEL, { k: 1, embeddings: bagOfWords, index: 'brute-force' });
    expect((await exact.invoke('are alcoholic drinks reimbursed'))[0]!.metadata.section).toBe(ALCOHOL);
  });

  it('feeds createVerificationGraph: citations name the real section', async () => {
    const quote = 'Alcoholic drinks are never reimbursed';
    const model = fakeModel()
      .respond(calls(['search_policy', { query: 'alcohol' }]))
      .respond(calls(['finish', { status: 'not_met', confidence: 0.9, citations: [{ source: 'travel-policy.md', section: ALCOHOL, quote }], rationale: '36 USD of wine.' }]));
    const { result } = await createVerificationGraph({ model, retriever: policyRetriever(TRAVEL), ...noWait }).invoke({ caseBundle: { alcohol: 36 }, criterion: { id: 'meals', text: 'No alcohol is claimed.' } });
    expect(result).toMatchObject({ status: 'not_met', citations: [{ source: 'travel-policy.md', section: ALCOHOL, quote }], rejectedCitations: [] });
    expect(result!.trace[0]!.observation).toContain(`source: travel-policy.md, section: ${ALCOHOL}`);
  });
});

describe('createVerificationGraph searchTool', () => {
  /** A fake model that records the tools it was bound with. */
  function recording(model: ReturnType<typeof fakeModel>) {
    const bound: StructuredToolInterface[] = [];
    const bind = model.bindTools.bind(model);
    model.bindTools = ((tools: StructuredToolInterface[]) => (bound.push(...tools), bind(tools))) as never;
    return { model, bound };
  }

  it('names and describes the search tool in the domain’s words, and verifies citations of what it retrieved', async () => {
    const quote = 'Every expense of 25 USD or more must be supported by an itemised receipt.';
    const { model, bound } = recording(
      fakeModel()
        .respond(calls(['search_travel_policy', { query: 'receipt' }]))
        .respond(calls(['find_in_policy', { text: 'itemised receipt' }]))
        .respond(calls(['finish', { status: 'met', confidence: 0.9, citations: [{ source: 'travel-policy.md', quote }], rationale: 'All receipts are itemised.' }])),
    );
    const verifier = createVerificationGraph({ model, retriever: policyRetriever(TRAVEL), searchTool: { name: 'search_travel_policy', description: 'Search the travel and expense policy.' }, ...noWait });
    const { result } = await verifier.invoke({ caseBundle: { receipts: 'itemised' }, criterion: { id: 'receipts', text: 'Expenses over 25 USD have receipts.' } });
    const search = bound.find((tool) => tool.name === 'search_travel_policy');
    expect(search?.description).toBe('Search the travel and expense policy.');
    expect(bound.map((tool) => tool.name)).not.toContain('search_policy');
    expect(bound.map((tool) => tool.description).join(' ')).not.toMatch(/coverage/i);
    // the built-in prompt names the tool as the model knows it, and says so in the prompt id
    expect(String(model.calls[0]!.messages[0]!.content)).toContain('Search the policy with search_travel_policy');
    expect(result).toMatchObject({ status: 'met', citations: [{ source: 'travel-policy.md', quote }], rejectedCitations: [], promptId: 'panoptes-verify-v1:search_travel_policy' });
    expect(result!.trace[1]!.observation).toContain(`Exact match in travel-policy.md, section ${RECEIPTS}`);
  });

  it('describes the search tool without naming a domain by default, and refuses a name providers would reject', () => {
    expect(DEFAULT_SEARCH_DESCRIPTION).not.toMatch(/coverage|medical|insurance/i);
    const { model, bound } = recording(fakeModel());
    createVerificationGraph({ model, retriever: policyRetriever(TRAVEL) });
    expect(bound.find((tool) => tool.name === 'search_policy')?.description).toBe(DEFAULT_SEARCH_DESCRIPTION);
    expect(() => createVerificationGraph({ model: fakeModel(), retriever: policyRetriever(TRAVEL), searchTool: { name: 'search the policy' } })).toThrow(InvalidOptionError);
  });
});
