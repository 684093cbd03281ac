import type { DocumentInterface } from '@langchain/core/documents';
import { ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { Command } from '@langchain/langgraph';
import MiniSearch from 'minisearch';
import { z } from 'zod';
import { normalizeQuoteText, type CitableDocument } from '../../../src/index.js';
import type { Clock } from '../../../src/index.js';
import { evaluationMessages } from './evaluation.js';
import { ended } from './model-call.js';
import type { ReactControllerState } from './state.js';
import type { CaseBundle } from './verification-state.js';

/** Where policy documents come from: a LangChain retriever, or a function of the query. */
export type PolicyRetriever = { invoke(query: string, config?: unknown): Promise<DocumentInterface[]> } | ((query: string) => Promise<DocumentInterface[]>);

/** A document as a run keeps it: its source, its section, and its text (cut to `maxDocumentChars`). */
export interface RetrievedDocument extends CitableDocument {
  source: string;
  section?: string;
}

export const SEARCH_POLICY_TOOL = 'search_policy';

/** What the search tool is told to be unless the graph's `searchTool` option says otherwise: no domain named. */
export const DEFAULT_SEARCH_DESCRIPTION = 'Search the policy. Returns the matching passages with their source and section.';

/** Marks a search answer in its `response_metadata`, so a search tool under another name is still recognised. */
const RETRIEVAL_MARK = 'panoptes_retrieval';

/** Bounds on what the tools read, so a retriever returning a huge corpus costs bounded memory per run. */
export interface PolicyToolLimits {
  maxDocumentsPerSearch: number;
  maxDocumentChars: number;
  /** The search tool's name. @default 'search_policy' */
  name?: string;
  /** The search tool's description, in the words of your domain. */
  description?: string;
}

/** The documents this run retrieved: the artifacts of its `search_policy` answers, in the order read. */
export function retrievedDocuments(messages: readonly BaseMessage[]): RetrievedDocument[] {
  const documents: RetrievedDocument[] = [];
  for (const message of messages) {
    if (message.getType() !== 'tool' || (message.name !== SEARCH_POLICY_TOOL && (message.response_metadata as Record<string, unknown> | undefined)?.[RETRIEVAL_MARK] !== true)) continue;
    const artifact = (message as ToolMessage).artifact;
    if (Array.isArray(artifact)) documents.push(...(artifact as RetrievedDocument[]));
  }
  return documents;
}

/**
 * `search_policy(query)`: the retriever's documents, numbered, with their sources; the documents ride as the
 * answer's artifact, which is what citations are checked against. A retriever that throws ends the run
 * `uncertain` with `retrieval_error`: a verdict on a policy the run could not read would be a guess. Its error text
 * passes `redact` first (a provider's error may quote a key).
 */
export function searchPolicyTool(retriever: PolicyRetriever, { maxDocumentsPerSearch, maxDocumentChars, name = SEARCH_POLICY_TOOL, description = DEFAULT_SEARCH_DESCRIPTION }: PolicyToolLimits, clock: Clock, redact: (text: string) => string = (text) => text): StructuredToolInterface {
  const mark = { [RETRIEVAL_MARK]: true };
  const retrieve = typeof retriever === 'function' ? retriever : (query: string) => retriever.invoke(query);
  return tool(
    async ({ query }: { query: string }, runtime: unknown) => {
      const id = (runtime as { toolCall?: { id?: string } }).toolCall?.id ?? '';
      let found: DocumentInterface[];
      try {
        found = await retrieve(query);
        if (!Array.isArray(found)) throw new TypeError(`the retriever returned ${typeof found}, not a list of documents`);
      } catch (error) {
        const detail = redact(`the retriever failed: ${error instanceof Error ? error.message : String(error)}`);
        return new Command({ update: { react: ended({}, 'retrieval_error', detail, clock), messages: [new ToolMessage({ content: `${name} failed: ${detail}`, name, tool_call_id: id, status: 'error', response_metadata: mark })] } });
      }
      const documents = found.slice(0, maxDocumentsPerSearch).map((document, index): RetrievedDocument => {
        const metadata = (document.metadata ?? {}) as { source?: unknown; section?: unknown };
        const section = metadata.section === undefined ? undefined : String(metadata.section);
        return { source: String(metadata.source ?? document.id ?? `document-${index + 1}`), ...(section === undefined ? {} : { section }), text: String(document.pageContent ?? '').slice(0, maxDocumentChars) };
      });
      const content = documents.length === 0 ? `No policy text matches "${query}". Try other words.` : documents.map((document, index) => `[${index + 1}] source: ${document.source}${document.section ? `, section: ${document.section}` : ''}\n${document.text}`).join('\n\n');
      // A message of its own (not LangChain's content-and-artifact tuple), so a failure above can be a Command.
      return new ToolMessage({ content, artifact: documents, name, tool_call_id: id, response_metadata: mark });
    },
    { name, description, schema: z.object({ query: z.string().describe('What to look for in the policy') }) },
  ) as unknown as StructuredToolInterface;
}

/** `get_case_facts(fields)`: the named fields of the case bundle (dotted paths reach nested fields); missing ones are listed. */
export function caseFactsTool(): StructuredToolInterface {
  return tool(
    async ({ fields }: { fields: string[] }, runtime: unknown) => {
      const bundle = ((runtime as { state?: { caseBundle?: CaseBundle } }).state?.caseBundle ?? {}) as CaseBundle;
      const facts: Record<string, unknown> = {};
      const missing: string[] = [];
      for (const field of fields) {
        const value = field.split('.').reduce<unknown>((node, key) => (node !== null && typeof node === 'object' && Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined), bundle);
        if (value === undefined) missing.push(field);
        else facts[field] = value;
      }
      return JSON.stringify(missing.length > 0 ? { facts, missing } : { facts });
    },
    { name: 'get_case_facts', description: "Read fields of the case. Returns their values, and lists fields the case does not have.", schema: z.object({ fields: z.array(z.string()).min(1).describe('Field names, e.g. ["diagnosis", "prior_treatments"]') }) },
  ) as unknown as StructuredToolInterface;
}

/**
 * `find_in_policy(text)`: where the words occur in the documents retrieved so far: the exact span (whitespace and
 * case normalised) with its context, else the closest passages by MiniSearch's fuzzy full-text search. Only what
 * this run retrieved is searched, so a quote found here will verify.
 */
export function findInPolicyTool(searchName = SEARCH_POLICY_TOOL): StructuredToolInterface {
  return tool(
    async ({ text }: { text: string }, runtime: unknown) => {
      const state = (runtime as { state?: { messages?: BaseMessage[]; react?: ReactControllerState } }).state;
      const documents = retrievedDocuments(evaluationMessages(state?.messages ?? [], state?.react));
      if (documents.length === 0) return `Nothing retrieved yet: call ${searchName} first.`;
      const wanted = normalizeQuoteText(text);
      for (const document of documents) {
        const normalized = normalizeQuoteText(document.text);
        const at = normalized.indexOf(wanted);
        if (at >= 0 && wanted.length > 0) return `Exact match in ${where(document)}: "${normalized.slice(Math.max(0, at - 150), at + wanted.length + 150)}"`;
      }
      const passages = documents.flatMap((document) => splitPassages(document.text).map((passage) => ({ passage, document })));
      const index = new MiniSearch<{ id: number; text: string }>({ fields: ['text'], storeFields: [] });
      index.addAll(passages.map(({ passage }, id) => ({ id, text: passage })));
      const hits = index.search(text, { fuzzy: 0.2, prefix: true, combineWith: 'OR' }).slice(0, 3);
      if (hits.length === 0) return `No passage of the retrieved documents resembles "${text}".`;
      return `No exact match. Closest passages:\n${hits.map((hit) => `- ${where(passages[hit.id as number]!.document)}: "${passages[hit.id as number]!.passage}"`).join('\n')}`;
    },
    { name: 'find_in_policy', description: 'Find the exact wording of a passage in the policy text retrieved so far (exact, else fuzzy). Use it to copy quotes for citations.', schema: z.object({ text: z.string().min(1).describe('Words to locate') }) },
  ) as unknown as StructuredToolInterface;
}

function where(document: RetrievedDocument): string {
  return document.section ? `${document.source}, section ${document.section}` : document.source;
}

/** Sentences (or lines), at most 400 characters each: the units a fuzzy match returns. */
function splitPassages(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((passage) => passage.trim())
    .filter((passage) => passage.length > 0)
    .flatMap((passage) => (passage.length <= 400 ? [passage] : (passage.match(/.{1,400}(\s|$)/g) ?? [passage])));
}
