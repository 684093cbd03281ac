import { createHash, randomUUID } from 'node:crypto';
import { HumanMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { BaseCheckpointSaver, BaseStore, CompiledStateGraph, LangGraphRunnableConfig, StateGraph } from '@langchain/langgraph';
import { z } from 'zod';
import { ATTR, createReactTelemetry, InvalidOptionError, SPAN, systemClock } from '../../../src/index.js';
import { criterionResult, type VerificationFinish } from './criterion-result.js';
import { beginEvaluation } from './evaluation.js';
import { buildReactGraph } from './graph.js';
import { ended } from './model-call.js';
import type { ReactGraphOptions } from './options.js';
import { noteRun, threadAttributes } from './run-trace.js';
import { fallbackVerdictSchema, reactFallbackOf, type VerificationFallback } from './verification-fallback.js';
import { criterionMessage, VERIFICATION_PROMPT_ID, VERIFICATION_SYSTEM_PROMPT } from './verification-prompt.js';
import { VerificationAnnotation, VerificationInputAnnotation, VerificationOutputAnnotation, type VerificationState } from './verification-state.js';
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
export interface VerificationGraphOptions extends Omit<ReactGraphOptions<VerificationFinish>, 'tools' | 'finishSchema' | 'finishDescription' | 'systemPrompt' | 'fallback'> {
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
  /**
   * Used after a permanent error, or when retries ran out: another chat model (it continues the conversation), or a
   * function of `{ error, caseBundle, criterion, state, messages }` whose verdict is the result (a rule over the
   * case's fields, say).
   */
  fallback?: VerificationFallback;
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
 * The reference controller's use case as a compiled LangGraph graph: `{ caseBundle, criterion }` in, `{ result }` (a
 * {@link CriterionResult}) out, both declared as the graph's input and output schemas. The model searches the policy
 * (`search_policy`, over your retriever), reads the case (`get_case_facts`), locates exact wording
 * (`find_in_policy`, full-text over what it retrieved) and calls `finish`; citations are checked against the
 * documents this run retrieved. Every way a run can end (budgets, errors, a bad input) gives a result, never an
 * exception. Each input begins a new evaluation of its thread (`history` says whether the model reads the earlier
 * ones). Case data and provider errors are redacted (`redactPatterns`) before they enter the trace, `detail` or a
 * span.
 * @throws {InvalidOptionError} at construction: no retriever, and whatever `createReactGraph` refuses.
 * @example
 * const verifier = createVerificationGraph({ model, retriever: vectorStore.asRetriever(4) });
 * const { result } = await verifier.invoke({ caseBundle: { diagnosis: 'M54.5', weeks_of_therapy: 8 }, criterion: { id: 'C1', text: 'Six weeks of conservative therapy' } });
 */
export function createVerificationGraph(options: VerificationGraphOptions): VerificationGraph {
  const { retriever, tools = [], systemPrompt, promptId, abstainBelow = DEFAULT_ABSTAIN_BELOW, maxCriterionBytes = DEFAULT_MAX_CRITERION_BYTES, maxCaseBytes = DEFAULT_MAX_CASE_BYTES, maxDocumentsPerSearch = 5, maxDocumentChars = 20_000, checkpointer, cache, store, fallback, searchTool = {}, ...react } = options;
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
  const history = react.history ?? 'reset';
  const builtInPromptId = searchName === SEARCH_POLICY_TOOL ? VERIFICATION_PROMPT_ID : `${VERIFICATION_PROMPT_ID}:${searchName}`;
  const resolvedPromptId = promptId ?? (systemPrompt === undefined ? builtInPromptId : `custom-${createHash('sha256').update(systemPrompt).digest('hex').slice(0, 12)}`);
  const reactFallback = reactFallbackOf(fallback);
  const telemetry = createReactTelemetry(react);
  const resultOf = (state: VerificationState, threadId: string | undefined) => criterionResult(state, { abstainBelow, promptId: resolvedPromptId, redact: telemetry.redact, ...(threadId === undefined ? {} : { threadId }) });
  const graph = buildReactGraph<VerificationFinish>(
    {
      ...react,
      ...(reactFallback ? { fallback: reactFallback as never } : {}),
      tools: [searchPolicyTool(retriever, { maxDocumentsPerSearch, maxDocumentChars, ...searchTool }, clock, telemetry.redact), caseFactsTool(), findInPolicyTool(searchName), ...tools],
      finishSchema: verificationFinishSchema as never,
      finishDescription: 'Give your verdict on the criterion, with verbatim citations from the policy.',
      systemPrompt: systemPrompt ?? VERIFICATION_SYSTEM_PROMPT.replaceAll(SEARCH_POLICY_TOOL, searchName),
    },
    {
      state: VerificationAnnotation as never,
      input: VerificationInputAnnotation as never,
      output: VerificationOutputAnnotation as never,
      fallbackSchema: fallbackVerdictSchema,
      telemetry,
      runtime: {
        name: 'panoptes_verifier',
        spanName: SPAN.verifyCriterion,
        verification: true,
        resultOf,
        attributes: (input, config) => ({ ...threadAttributes(config), ...criterionAttributes((input as { criterion?: unknown } | null)?.criterion) }),
      },
      // Every input begins a new evaluation of the thread: the controller's state starts afresh, the previous
      // result is cleared, and (unless `history: 'keep'`) the earlier messages leave the thread.
      prepare: (state: VerificationState) => {
        const problem = inputProblem(state, { maxCriterionBytes, maxCaseBytes });
        const opening = problem ? [] : [new HumanMessage({ content: criterionMessage(state.criterion, state.caseBundle ?? {}), id: randomUUID() })];
        const start = beginEvaluation({ earlier: state.messages, input: opening, added: true, react: state.react, panoptes: state.panoptes }, history);
        noteRun({ attributes: criterionAttributes(state.criterion) });
        return { ...start.update, result: undefined, ...(problem ? { react: { ...start.update.react, ...ended({}, 'invalid_input', problem, clock) } } : {}) };
      },
      conclude: (state: VerificationState, config: LangGraphRunnableConfig) => {
        const thread = config?.configurable?.thread_id;
        const result = resultOf(state, thread === undefined ? undefined : String(thread));
        noteRun({ verdict: result, react: state.react, messages: state.messages });
        return { result };
      },
    },
  );
  return graph.compile({ ...(checkpointer ? { checkpointer } : {}), ...(cache ? { cache } : {}), ...(store ? { store } : {}) }) as VerificationGraph;
}

type CompileOptions = NonNullable<Parameters<StateGraph<any>['compile']>[0]>;

/** The nodes of a verification graph. */
export type VerificationNode = 'prepare' | 'model' | 'tools' | 'settle' | 'conclude';

/**
 * A compiled verification graph, typed as LangGraph types its graphs: `invoke`, `stream` (every `streamMode`),
 * `streamEvents`, `getState`, `updateState` and use as a subgraph need no casts; the input is
 * `{ caseBundle, criterion }`, the output `{ result }`.
 */
export type VerificationGraph = CompiledStateGraph<VerificationState, typeof VerificationAnnotation.Update, VerificationNode, typeof VerificationInputAnnotation.spec, typeof VerificationOutputAnnotation.spec>;

function criterionAttributes(criterion: unknown) {
  const id = (criterion as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? { [ATTR.criterionId]: id } : {};
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
