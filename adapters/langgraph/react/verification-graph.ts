import { createHash } from 'node:crypto';
import { HumanMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { BaseCheckpointSaver, BaseStore, StateGraph } from '@langchain/langgraph';
import { z } from 'zod';
import { InvalidOptionError, systemClock } from '../../../src/index.js';
import { criterionResult, type VerificationFinish } from './criterion-result.js';
import { buildReactGraph, reactRecursionLimit } from './graph.js';
import { ended } from './model-call.js';
import { DEFAULT_MAX_ITERATIONS, type ReactGraphOptions } from './options.js';
import { criterionMessage, VERIFICATION_PROMPT_ID, VERIFICATION_SYSTEM_PROMPT } from './verification-prompt.js';
import { VerificationAnnotation, type VerificationState } from './verification-state.js';
import { caseFactsTool, findInPolicyTool, SEARCH_POLICY_TOOL, searchPolicyTool, type PolicyRetriever } from './verification-tools.js';

/** Confidence below which a verdict becomes `uncertain` (`low_confidence`): the reference controller's abstention rule. */
export const DEFAULT_ABSTAIN_BELOW = 0.65;
/** Largest criterion text accepted, in bytes. */
export const DEFAULT_MAX_CRITERION_BYTES = 32 * 1024;
/** Largest case bundle accepted, as JSON, in bytes. */
export const DEFAULT_MAX_CASE_BYTES = 256 * 1024;

/** The arguments of the verifier's `finish`. */
export const verificationFinishSchema = z.object({
  status: z.enum(['met', 'not_met', 'uncertain']).describe('met, not_met, or uncertain when the evidence does not settle it'),
  confidence: z.number().min(0).max(1),
  citations: z.array(z.object({ source: z.string(), section: z.string().optional(), quote: z.string().describe('Copied word for word from a search_policy result') })),
  rationale: z.string(),
});

/** Options of {@link createVerificationGraph}: the ReAct options (budgets, retries, fallback, plug-ins), and the verifier's own. */
export interface VerificationGraphOptions extends Omit<ReactGraphOptions<VerificationFinish>, 'tools' | 'finishSchema' | 'finishDescription' | 'systemPrompt'> {
  /** Where the policy comes from: any LangChain `BaseRetriever`, or `(query) => Promise<Document[]>`. */
  retriever: PolicyRetriever;
  /**
   * The search tool's name and description, in your domain's words (`{ name: 'search_travel_policy', description:
   * 'Search the travel and expense policy.' }`). The built-in prompt names the tool by this name.
   * @default { name: 'search_policy', description: 'Search the policy. Returns the matching passages with their source and section.' }
   */
  searchTool?: { name?: string; description?: string };
  /** More tools for the model, beside search_policy, get_case_facts and find_in_policy. @default [] */
  tools?: StructuredToolInterface[];
  /** Your system prompt instead of the built-in one; give it a `promptId`. */
  systemPrompt?: string;
  /** Carried by every result. @default 'panoptes-verify-v1', or a hash of your systemPrompt */
  promptId?: string;
  /** Confidence below which `met` and `not_met` become `uncertain` (`low_confidence`). @default 0.65 */
  abstainBelow?: number;
  /** Largest criterion text, in bytes. @default 32768 */
  maxCriterionBytes?: number;
  /** Largest case bundle as JSON, in bytes. @default 262144 */
  maxCaseBytes?: number;
  /** Documents kept from one search. @default 5 */
  maxDocumentsPerSearch?: number;
  /** Characters kept of one document. @default 20000 */
  maxDocumentChars?: number;
  checkpointer?: BaseCheckpointSaver;
  /**
   * Passed to `compile`. Panoptes' nodes set no `cachePolicy`: a node's input is the whole state, which differs
   * from run to run, so identical tool calls are answered from the run's own thread instead (`cacheToolCalls`).
   */
  cache?: CompileOptions['cache'];
  store?: BaseStore;
}

/**
 * The reference controller's use case as a compiled LangGraph graph: `{ caseBundle, criterion }` in, `result` (a
 * {@link CriterionResult}) out. The model searches the policy (`search_policy`, over your retriever), reads the
 * case (`get_case_facts`), locates exact wording (`find_in_policy`, full-text over what it retrieved) and calls
 * `finish`; citations are checked against the documents this run retrieved. Every way a run can end (budgets,
 * errors, a bad input) gives a result, never an exception.
 * @throws {InvalidOptionError} at construction: no retriever, and whatever `createReactGraph` refuses.
 * @example
 * const verifier = createVerificationGraph({ model, retriever: vectorStore.asRetriever(4) });
 * const { result } = await verifier.invoke({ caseBundle: { diagnosis: 'M54.5', weeks_of_therapy: 8 }, criterion: { id: 'C1', text: 'Six weeks of conservative therapy' } });
 */
export function createVerificationGraph(options: VerificationGraphOptions) {
  const { retriever, tools = [], systemPrompt, promptId, abstainBelow = DEFAULT_ABSTAIN_BELOW, maxCriterionBytes = DEFAULT_MAX_CRITERION_BYTES, maxCaseBytes = DEFAULT_MAX_CASE_BYTES, maxDocumentsPerSearch = 5, maxDocumentChars = 20_000, checkpointer, cache, store, searchTool = {}, ...react } = options;
  const searchName = searchTool.name ?? SEARCH_POLICY_TOOL;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(searchName)) throw new InvalidOptionError({ parameter: 'searchTool.name', value: searchName, fix: 'Pass 1 to 64 letters, digits, _ or -: the name providers accept for a tool.' });
  if (!retriever || (typeof retriever !== 'function' && typeof (retriever as { invoke?: unknown }).invoke !== 'function')) {
    throw new InvalidOptionError({ parameter: 'retriever', value: retriever, fix: 'Pass a LangChain retriever (vectorStore.asRetriever()) or a function (query) => Promise<Document[]>: the verifier has nothing to read without one.' });
  }
  if (!(abstainBelow >= 0 && abstainBelow <= 1)) throw new InvalidOptionError({ parameter: 'abstainBelow', value: abstainBelow, fix: 'Pass a confidence in [0, 1]; the default is 0.65.' });
  for (const [parameter, value] of Object.entries({ maxCriterionBytes, maxCaseBytes, maxDocumentsPerSearch, maxDocumentChars })) {
    if (!(Number.isInteger(value) && value > 0)) throw new InvalidOptionError({ parameter, value, fix: 'Pass a whole number above 0.' });
  }
  const clock = react.clock ?? systemClock;
  const builtInPromptId = searchName === SEARCH_POLICY_TOOL ? VERIFICATION_PROMPT_ID : `${VERIFICATION_PROMPT_ID}:${searchName}`;
  const resolvedPromptId = promptId ?? (systemPrompt === undefined ? builtInPromptId : `custom-${createHash('sha256').update(systemPrompt).digest('hex').slice(0, 12)}`);
  const graph = buildReactGraph<VerificationFinish>(
    {
      ...react,
      tools: [searchPolicyTool(retriever, { maxDocumentsPerSearch, maxDocumentChars, ...searchTool }, clock), caseFactsTool(), findInPolicyTool(searchName), ...tools],
      finishSchema: verificationFinishSchema as never,
      finishDescription: 'Give your verdict on the criterion, with verbatim citations from the policy.',
      systemPrompt: systemPrompt ?? VERIFICATION_SYSTEM_PROMPT.replaceAll(SEARCH_POLICY_TOOL, searchName),
    },
    {
      state: VerificationAnnotation as never,
      prepare: (state: VerificationState) => {
        const problem = inputProblem(state, { maxCriterionBytes, maxCaseBytes });
        if (problem) return { react: ended({}, 'invalid_input', problem, clock) };
        return { messages: [new HumanMessage(criterionMessage(state.criterion, state.caseBundle ?? {}))] };
      },
      conclude: (state: VerificationState) => ({ result: criterionResult(state, { abstainBelow, promptId: resolvedPromptId }) }),
    },
  );
  const compiled = graph.compile({ ...(checkpointer ? { checkpointer } : {}), ...(cache ? { cache } : {}), ...(store ? { store } : {}) });
  // The iteration budget ends a run; LangGraph's recursion limit stays a backstop above it.
  compiled.config = { ...compiled.config, recursionLimit: reactRecursionLimit(react.maxIterations ?? DEFAULT_MAX_ITERATIONS) };
  return compiled as unknown as VerificationGraph;
}

type CompileOptions = NonNullable<Parameters<StateGraph<any>['compile']>[0]>;

/** A compiled verification graph: what {@link createVerificationGraph} returns and {@link verifyCase} runs. */
export interface VerificationGraph {
  invoke(input: { caseBundle: Record<string, unknown>; criterion: { id: string; text: string } } | unknown, config?: Record<string, unknown>): Promise<VerificationState>;
  readonly checkpointer?: unknown;
}

/** What is wrong with a run's input, naming the field and the limit, or undefined. */
function inputProblem(state: VerificationState, { maxCriterionBytes, maxCaseBytes }: { maxCriterionBytes: number; maxCaseBytes: number }): string | undefined {
  const { criterion, caseBundle } = state;
  if (!criterion || typeof criterion !== 'object') return 'the input has no `criterion`: pass { caseBundle, criterion: { id, text } }';
  if (typeof criterion.id !== 'string' || criterion.id.trim() === '') return 'criterion.id is empty: give each criterion an id, so its result can be matched to it';
  if (typeof criterion.text !== 'string' || criterion.text.trim() === '') return `criterion ${criterion.id} has no text: give the requirement in the policy's words`;
  const criterionBytes = Buffer.byteLength(criterion.text, 'utf8');
  if (criterionBytes > maxCriterionBytes) return `criterion ${criterion.id} text is ${criterionBytes.toLocaleString('en-US')} bytes; the limit is ${maxCriterionBytes.toLocaleString('en-US')} bytes (maxCriterionBytes)`;
  if (caseBundle !== undefined && (typeof caseBundle !== 'object' || caseBundle === null || Array.isArray(caseBundle))) return 'caseBundle is not an object of fields';
  const caseBytes = Buffer.byteLength(JSON.stringify(caseBundle ?? {}), 'utf8');
  if (caseBytes > maxCaseBytes) return `the case bundle is ${caseBytes.toLocaleString('en-US')} bytes as JSON; the limit is ${maxCaseBytes.toLocaleString('en-US')} bytes (maxCaseBytes)`;
  return undefined;
}
