/**
 * What `panoptes verify` needs from LangChain, kept out of the core: the chat model (`initChatModel`, or a scripted
 * stand-in for offline runs), the policy retriever and the verification graph. The CLI imports this module by path
 * and only when it runs, so the rest of the command line never loads LangChain. Not part of the public API.
 * @internal
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, type ToolMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { normalizeQuoteText, type PriceTable, type ScriptedAnswer } from '../../../src/index.js';
import { policyRetriever, type PolicySectionRetriever } from './policy-retriever.js';
import { createVerificationGraph, type VerificationGraph } from './verification-graph.js';
import type { Criterion } from './verification-state.js';
import { SEARCH_POLICY_TOOL, type RetrievedDocument } from './verification-tools.js';
import { verifyCases, type CaseCriterionResult, type CaseToVerify, type VerifyCasesSummary } from './verify-cases.js';
import { abVerifier, type AbArm, type AbLabel, type AbMetrics } from './ab.js';
import { existsSync } from 'node:fs';


/** Options of {@link cliVerifier}. */
export interface CliVerifierOptions {
  /** Policy files. */
  policy: string[];
  criteria: Criterion[];
  /** `provider:name` for `initChatModel`; ignored with `scripted`. */
  model?: string;
  scripted?: { answers: ScriptedAnswer[]; file: string; delayMs?: number };
  prices?: PriceTable;
  /** Chunks per search. @default 4 */
  k?: number;
  maxIterations?: number;
}

/** The verifier `panoptes verify` runs, with what it needs to report. */
export interface CliVerifier {
  graph: VerificationGraph;
  retriever: PolicySectionRetriever;
  /** The model as the summary names it. */
  label: string;
  verifyCases: typeof verifyCases;
}

/**
 * Builds the graph `panoptes verify` runs: the policy's sections behind a search tool described by the policy's
 * own file names (no domain is assumed), and the model from `initChatModel` or the scripted answers.
 * @throws {Error} when `langchain` or the provider's package is missing, or the model cannot be loaded.
 */
export async function cliVerifier(options: CliVerifierOptions): Promise<CliVerifier> {
  const retriever = policyRetriever(options.policy, { k: options.k ?? 4 });
  const sources = [...new Set(retriever.documents.map((document) => String(document.metadata.source)))];
  const model = options.scripted ? new ScriptedVerifier(options.scripted.answers, options.criteria, options.scripted) : await chatModel(options.model ?? 'openai:gpt-4o-mini');
  const graph = createVerificationGraph({
    model: model as BaseChatModel,
    // The retriever as a function: the same search without a LangChain run (callbacks, a run tree) per call.
    retriever: (query: string) => retriever._getRelevantDocuments(query),
    searchTool: { description: `Search the policy (${sources.join(', ')}). Returns the matching passages with their source and section.` },
    ...(options.prices ? { prices: options.prices } : {}),
    ...(options.maxIterations ? { maxIterations: options.maxIterations } : {}),
  });
  return { graph, retriever, label: options.scripted ? `scripted answers (${options.scripted.file})` : (options.model ?? 'openai:gpt-4o-mini'), verifyCases };
}

/** An A/B split of a verify job: the candidate and its share (`--candidate-model`, `--ab-share`, `--labels`). */
export interface CliAbOptions {
  candidate: Pick<CliVerifierOptions, 'model' | 'scripted'>;
  share: number;
  labels?: AbLabel[];
  /** While this file exists, every new case goes to the primary (`--ab-rollback-when`). */
  rollbackWhen?: string;
}

/** A verify job as the CLI hands it over: what to build the verifier from, and what to run. */
export interface CliJob {
  verifier: CliVerifierOptions;
  /** Send a share of the cases to a candidate verifier instead. */
  ab?: CliAbOptions;
  cases: CaseToVerify[];
  /** Pairs done by an earlier run, as `<case id>\u0000<criterion id>`. */
  done: string[];
  concurrency: number;
}

/** Runs a verify job: every pair not done, `concurrency` at once, each result to `onResult` as it ends. */
export async function runCliJob(job: CliJob, onResult: (result: CaseCriterionResult & { arm?: AbArm }) => void, signal: AbortSignal): Promise<{ label: string; summary: VerifyCasesSummary; ab?: AbMetrics }> {
  const verifier = await cliVerifier(job.verifier);
  const done = new Set(job.done);
  const skip = (caseId: string, criterionId: string) => done.has(`${caseId}\u0000${criterionId}`);
  if (!job.ab) {
    const summary = await verifyCases(verifier.graph, job.cases, job.verifier.criteria, { concurrency: job.concurrency, skip, onResult, signal });
    return { label: verifier.label, summary };
  }
  const { share, labels, rollbackWhen } = job.ab;
  const { candidate: candidateOptions } = job.ab;
  const candidate = await cliVerifier({ ...job.verifier, model: candidateOptions.model, scripted: candidateOptions.scripted } as CliVerifierOptions);
  // The arm each verdict came from, read back when verifyCases hands the verdict on (a run that threw has none).
  const arms = new Map<string, AbArm>();
  const split = abVerifier(verifier.graph, candidate.graph, {
    share,
    ...(labels ? { labels } : {}),
    ...(rollbackWhen ? { rollback: () => existsSync(rollbackWhen) } : {}),
    onResult: (result) => void arms.set(`${result.caseId}\u0000${result.criterionId}`, result.arm),
  });
  const summary = await verifyCases(split, job.cases, job.verifier.criteria, {
    concurrency: job.concurrency,
    skip,
    signal,
    onResult: (result) => {
      const key = `${result.caseId}\u0000${result.criterionId}`;
      const arm = arms.get(key) ?? split.arm(result.caseId);
      arms.delete(key);
      onResult({ ...result, arm });
    },
  });
  return { label: `${verifier.label}, A/B: ${formatShare(share)} of cases to ${candidate.label}`, summary, ab: split.metrics() };
}

function formatShare(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}

/** The model through LangChain's `initChatModel`, imported only now: `langchain` and the provider are the user's. */
async function chatModel(spec: string): Promise<unknown> {
  const specifier = 'langchain/chat_models/universal';
  let universal: { initChatModel: (model: string, fields?: Record<string, unknown>) => Promise<unknown> };
  try {
    universal = (await import(specifier)) as typeof universal;
  } catch (error) {
    throw new Error(`--model needs the \`langchain\` package and a provider package (e.g. @langchain/openai): npm install langchain @langchain/openai (${(error as Error).message})`);
  }
  try {
    const model = (await universal.initChatModel(spec, { temperature: 0 })) as { _getModelInstance?: (config: object) => Promise<unknown> };
    // initChatModel makes the provider's model at its first call: make it now, so a missing key or package fails
    // here, once, rather than in every run of the job
    if (typeof model._getModelInstance === 'function') await model._getModelInstance({});
    return model;
  } catch (error) {
    throw new Error(`cannot load the model '${spec}': ${(error as Error).message}; write it as provider:name, e.g. openai:gpt-4o-mini, and install the provider's package`);
  }
}

let ids = 0;

/**
 * A stand-in for a model, for offline runs and benchmarks: it works as a careful model would, in two turns. First
 * it searches the policy with the criterion's text and reads the case's `id`, then it looks up its answer for that
 * case and criterion, searches again with the answer's `query` if a quote is not in what it read, and calls
 * `finish`, copying the source and section of the passage that holds each quote. It reports token usage as a
 * provider would (about four characters a token) under the model name `scripted`. A pair without an answer is an
 * error, so the run ends `uncertain` (`llm_error`) and says which.
 */
export class ScriptedVerifier extends BaseChatModel {
  private readonly answers = new Map<string, ScriptedAnswer>();
  private readonly delayMs: number;

  constructor(
    answers: ScriptedAnswer[],
    private readonly criteria: Criterion[],
    private readonly options: { file: string; delayMs?: number },
  ) {
    super({});
    for (const answer of answers) this.answers.set(`${answer.case}\u0000${answer.criterion}`, answer);
    this.delayMs = options.delayMs ?? 0;
  }

  _llmType() {
    return 'scripted-verifier';
  }

  override bindTools() {
    return this as never;
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions']): Promise<ChatResult> {
    if (this.delayMs > 0) await delay(this.delayMs, options?.signal);
    const message = this.decide(messages);
    const input = messages.reduce((sum, item) => sum + (typeof item.content === 'string' ? item.content.length : JSON.stringify(item.content).length), 0);
    const output = JSON.stringify(message.tool_calls).length;
    message.usage_metadata = { input_tokens: Math.ceil(input / 4), output_tokens: Math.ceil(output / 4), total_tokens: Math.ceil(input / 4) + Math.ceil(output / 4) };
    message.response_metadata = { model_name: 'scripted' };
    return { generations: [{ message, text: '' }] };
  }

  private decide(messages: BaseMessage[]): AIMessage {
    const opening = String(messages.find((message) => message.getType() === 'human')?.content ?? '');
    const criterion = this.criterionOf(opening);
    const tools = messages.filter((message): message is ToolMessage => message.getType() === 'tool');
    const facts = tools.find((message) => message.name === 'get_case_facts');
    if (!facts) return call([[SEARCH_POLICY_TOOL, { query: criterion?.text ?? opening.slice(0, 200) }], ['get_case_facts', { fields: ['id'] }]]);
    const caseId = String((JSON.parse(String(facts.content)) as { facts?: { id?: unknown } }).facts?.id ?? '');
    const answer = this.answers.get(`${caseId}\u0000${criterion?.id ?? ''}`);
    if (!answer) throw new Error(`${this.options.file} has no answer for case ${JSON.stringify(caseId)}, criterion ${JSON.stringify(criterion?.id ?? '?')}`);
    const read = tools.flatMap((message) => (Array.isArray(message.artifact) ? (message.artifact as RetrievedDocument[]) : []));
    const holder = (quote: string) => read.find((document) => normalizeQuoteText(document.text).includes(normalizeQuoteText(quote)));
    const searched = tools.filter((message) => message.name === SEARCH_POLICY_TOOL).length;
    if (answer.query && searched < 2 && answer.citations.some((citation) => !holder(citation.quote))) return call([[SEARCH_POLICY_TOOL, { query: answer.query }]]);
    const citations = answer.citations.map((citation) => {
      const document = holder(citation.quote) ?? read[0];
      const section = citation.section ?? document?.section;
      return { source: citation.source ?? document?.source ?? 'policy', ...(section === undefined ? {} : { section }), quote: citation.quote };
    });
    return call([['finish', { status: answer.status, confidence: answer.confidence, citations, rationale: answer.rationale }]]);
  }

  /** The criterion the run is about: the one whose text the opening message holds (the longest, if several do). */
  private criterionOf(opening: string): Criterion | undefined {
    let best: Criterion | undefined;
    for (const criterion of this.criteria) if (opening.includes(criterion.text) && (!best || criterion.text.length > best.text.length)) best = criterion;
    return best;
  }
}

function call(list: Array<[string, Record<string, unknown>]>): AIMessage {
  return new AIMessage({ content: '', tool_calls: list.map(([name, args]) => ({ id: `scripted_${++ids}`, name, args, type: 'tool_call' as const })) });
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const abort = () => (clearTimeout(timer), reject(signal!.reason));
    const timer = setTimeout(() => (signal?.removeEventListener('abort', abort), resolve()), ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}
