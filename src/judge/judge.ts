import { TimedOut } from '../async/index.js';
import { unwrapAnswer, type TokenUsage } from '../authoring/model.js';
import { costOf, priceOf, type PriceTable } from '../react/budgets.js';
import { systemTimers, type Timers } from '../clock/index.js';
import { InvalidOptionError } from '../errors/index.js';
import { warnSafely, type Logger } from '../monitor/fail-open.js';
import { ATTR, createTelemetry, SPAN, type TelemetryOptions } from '../telemetry/index.js';
import { createJudgeBudget, type JudgeBudget, type JudgeBudgetOptions } from './budget.js';
import { createVerdictCache, judgeCacheKey, type VerdictCache } from './cache.js';
import { combineVerdicts, ENSEMBLE_MODES, type EnsembleDetail, type EnsembleMode, type MemberJudgment } from './ensemble.js';
import { judgedText, rubricApplies, type JudgedTextLimits, type JudgeInput } from './input.js';
import { createLimiter } from './limiter.js';
import type { JudgeModel, JudgeModelRequest } from './model.js';
import { judgeMessages, verdictJsonSchema } from './prompt.js';
import type { Rubric, RubricOnError, RubricOnFail, RubricScope } from './rubric.js';
import { isVerdictProblem, readVerdict, type JudgeVerdict } from './verdict.js';

/** Time one judgment may take, queue included, unless told otherwise. */
export const DEFAULT_JUDGE_TIMEOUT_MS = 10_000;
/** Model calls one judge makes at once, unless told otherwise. */
export const DEFAULT_JUDGE_CONCURRENCY = 4;

/** Why a judgment has no usable verdict. Each is counted, and leads to the rubric's `on_error`. */
export type JudgeErrorKind = 'timeout' | 'budget' | 'model' | 'invalid' | 'ungrounded';

/** What a judgment does: `allow` on a pass or a skip; the rubric's `on_fail` on a fail; its `on_error` on an error. */
export type JudgeAction = 'allow' | RubricOnFail | RubricOnError;

/** The result of judging one rubric on one input. */
export interface Judgment {
  rubric: string;
  scope: RubricScope;
  /** The cache key (rubric id and version, model id, normalised input); what a cassette is keyed by. */
  key: string;
  /** `skipped`: not sampled this time. */
  outcome: 'pass' | 'fail' | 'error' | 'skipped';
  action: JudgeAction;
  verdict?: JudgeVerdict;
  error?: { kind: JudgeErrorKind; message: string };
  /** The verdict came from the cache: no model call. */
  cached: boolean;
  /** Tokens the model call used (every member's, for an ensemble), when it reported them. */
  usage?: TokenUsage;
  /** What the model calls cost in US dollars, when the usage was reported and `prices` lists the model. */
  costUsd?: number;
  /** An ensemble's judgment: its mode, the members' agreement, and each member's answer. */
  ensemble?: EnsembleDetail;
}

/** Counts of a judge's work since it was made. */
export interface JudgeStats {
  judgments: number;
  calls: number;
  cacheHits: number;
  skipped: number;
  inputTokens: number;
  outputTokens: number;
  /** US dollars spent on model calls whose usage was reported and whose model `prices` lists. */
  costUsd: number;
  errors: Record<JudgeErrorKind, number>;
  /** Ensembles: members that gave no usable answer, by why (counted whether or not the judgment still had a quorum). */
  memberErrors: Record<JudgeErrorKind, number>;
}

/** Options of {@link createJudge}. */
export interface JudgeOptions extends TelemetryOptions {
  /** The judge's model: `judgeModel(...)` from an adapter, `scriptedJudge(fn)` or `recordedJudge(cassette)`. Or `models`. */
  model?: JudgeModel;
  /**
   * An ensemble instead of `model`: every member judges each rubric (each within `timeoutMs`, each a call of the
   * budget) and `ensemble` combines their verdicts. Members need distinct `modelId`s: each is part of the cache key.
   */
  models?: readonly JudgeModel[];
  /** How an ensemble's verdicts combine. @default 'majority' */
  ensemble?: EnsembleMode;
  /** Members of an ensemble that must answer; fewer is an error (`on_error`). @default more than half of them */
  quorum?: number;
  /**
   * Prices in US dollars per million tokens, by model id (`openai:gpt-4o-mini`) or bare model name (`gpt-4o-mini`; a
   * longer name is priced by its longest listed prefix). Judgments, spans, metrics and budgets then carry the cost.
   */
  prices?: PriceTable;
  /** The rubrics it judges (`loadRubrics`, `parseRubrics`). */
  rubrics: readonly Rubric[];
  /** Names the model in cache keys, cassettes and spans. @default the model's `modelId`, else `'model'`; an ensemble: `majority(a,b,c)` */
  modelId?: string;
  /** Where verdicts are kept: a shared cache, `{ maxEntries }`, or `false` for none. @default an LRU of 10000 verdicts */
  cache?: VerdictCache | { maxEntries?: number } | false;
  /** Calls and tokens allowed per session and per process; over budget is an error (`on_error`). @default no limits */
  budget?: JudgeBudget | JudgeBudgetOptions;
  /** Time one judgment may take, waiting for a slot included; then it is an error (`on_error`). @default 10000 */
  timeoutMs?: number;
  /** Model calls at once; the rest wait (inside their timeout). @default 4 */
  concurrency?: number;
  /** How much of the conversation the judge sees. */
  limits?: JudgedTextLimits;
  /** Draws for `sample`, in [0, 1). @default Math.random */
  random?: () => number;
  /** Where the timeout is scheduled. @default systemTimers */
  timers?: Timers;
  /** Where the first error of each kind is logged. @default console */
  logger?: Logger;
}

/** An LLM judge over a set of rubrics. Never throws for the model's failures: they become errors with `on_error`. */
export interface Judge {
  readonly rubrics: readonly Rubric[];
  readonly modelId: string;
  /** The rubric of that id, if the judge has it. */
  rubric(id: string): Rubric | undefined;
  /** The rubrics of a scope that apply to this input (`applies_to`, `every_turns`). */
  applicable(scope: RubricScope, input: JudgeInput): Rubric[];
  /**
   * Judges one rubric on one input.
   * @throws {InvalidOptionError} (as a rejection) for a rubric id the judge does not have.
   */
  judge(rubric: string | Rubric, input: JudgeInput): Promise<Judgment>;
  /** Judges every rubric of a scope that applies to the input, at once. */
  judgeScope(scope: RubricScope, input: JudgeInput): Promise<Judgment[]>;
  /** The cache key a judgment of this rubric on this input has. */
  keyOf(rubric: string | Rubric, input: JudgeInput): string;
  stats(): JudgeStats;
}

/**
 * Builds an LLM judge: each judgment renders the judged material for the rubric's scope, answers from the cache when
 * the same question was asked, else spends budget and asks the model within the timeout and concurrency limit,
 * validates the answer (zod, then every evidence quote against the judged material) and scores it against
 * `pass_at`. A timeout, an exhausted budget, a failing model and an invalid or ungrounded answer are errors: counted,
 * logged once per kind, and resolved by the rubric's `on_error`.
 * @throws {InvalidOptionError} at construction for a bad timeout, concurrency, budget or duplicate rubric id.
 * @example
 * const judge = createJudge({ model: scriptedJudge(() => ({ criteria: [{ id: 'no_amount', score: 1, reasoning: 'none named', evidence: [] }], confidence: 0.9 })), rubrics });
 * const judgment = await judge.judge('no_refund_promise', { messages, response: 'We will look into it.' });
 */
export function createJudge(options: JudgeOptions): Judge {
  const {
    model,
    models,
    ensemble: mode = 'majority',
    prices,
    rubrics,
    cache: cacheOption,
    budget: budgetOption,
    timeoutMs = DEFAULT_JUDGE_TIMEOUT_MS,
    concurrency = DEFAULT_JUDGE_CONCURRENCY,
    limits,
    random = Math.random,
    timers = systemTimers,
    logger = console,
  } = options;
  const members = judgeMembers(model, models);
  if (!ENSEMBLE_MODES.includes(mode)) throw new InvalidOptionError({ parameter: 'ensemble', value: mode, fix: `Pass one of ${ENSEMBLE_MODES.join(', ')}.` });
  const quorum = options.quorum ?? Math.floor(members.length / 2) + 1;
  if (!(Number.isInteger(quorum) && quorum >= 1 && quorum <= members.length)) throw new InvalidOptionError({ parameter: 'quorum', value: quorum, fix: `Pass a whole number from 1 to the number of members (${members.length}).` });
  if (!(typeof timeoutMs === 'number' && timeoutMs > 0)) throw new InvalidOptionError({ parameter: 'timeoutMs', value: timeoutMs, fix: `Pass a positive number of milliseconds; the default is ${DEFAULT_JUDGE_TIMEOUT_MS}.` });
  if (!(Number.isInteger(concurrency) && concurrency >= 1)) throw new InvalidOptionError({ parameter: 'concurrency', value: concurrency, fix: `Pass a whole number >= 1; the default is ${DEFAULT_JUDGE_CONCURRENCY}.` });
  if (prices !== undefined) checkPrices(prices);
  const byId = new Map<string, Rubric>();
  for (const rubric of rubrics) {
    if (byId.has(rubric.id)) throw new InvalidOptionError({ parameter: 'rubrics', value: rubric.id, fix: 'Give every rubric its own id; two rubrics share this one.' });
    byId.set(rubric.id, rubric);
  }
  const single = members.length === 1 && models === undefined;
  const modelId = options.modelId ?? (single ? members[0]!.id : `${mode}(${members.map((member) => member.id).join(',')})`);
  if (single) members[0]!.id = modelId;
  const cache: VerdictCache | undefined = cacheOption === false ? undefined : cacheOption && 'get' in cacheOption ? cacheOption : createVerdictCache(cacheOption ?? {});
  const budget: JudgeBudget = budgetOption && 'reserve' in budgetOption ? budgetOption : createJudgeBudget(budgetOption ?? {});
  const limiter = createLimiter(concurrency);
  const telemetry = createTelemetry(options);
  const noErrors = (): Record<JudgeErrorKind, number> => ({ timeout: 0, budget: 0, model: 0, invalid: 0, ungrounded: 0 });
  const stats: JudgeStats = { judgments: 0, calls: 0, cacheHits: 0, skipped: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, errors: noErrors(), memberErrors: noErrors() };
  const costFor = (id: string, usage: TokenUsage | undefined): number | undefined => {
    if (!usage || !prices) return undefined;
    const price = priceOf(prices, id) ?? (id.includes(':') ? priceOf(prices, id.slice(id.indexOf(':') + 1)) : undefined);
    return price ? costOf(usage, price) : undefined;
  };

  const limitsFor = (rubric: Rubric): JudgedTextLimits | undefined => (rubric.toolResults === undefined ? limits : { ...limits, recentToolResults: rubric.toolResults });
  const resolve = (reference: string | Rubric): Rubric => {
    const rubric = typeof reference === 'string' ? byId.get(reference) : reference;
    if (!rubric) throw new InvalidOptionError({ parameter: 'rubric', value: reference, fix: `Name one of the judge's rubrics: ${[...byId.keys()].join(', ') || '(none)'}.` });
    return rubric;
  };

  /** Asks the model within the timeout and a concurrency slot; the answer, or the error that stands for it. */
  async function ask(member: JudgeModel, request: Omit<JudgeModelRequest, 'signal'>): Promise<{ answer: unknown } | { kind: JudgeErrorKind; message: string }> {
    const controller = new AbortController();
    const timer = timers.setTimeout(() => controller.abort(new TimedOut(timeoutMs)), timeoutMs);
    const aborted = new Promise<never>((_resolve, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true }));
    aborted.catch(() => undefined); // read below, or never when the model answers first
    let release: (() => void) | undefined;
    try {
      release = await limiter.acquire(controller.signal);
      // A model that throws at once, returns a non-promise or never settles is caught the same way.
      const call = Promise.resolve().then(() => member({ ...request, signal: controller.signal }));
      call.catch(() => undefined);
      return { answer: await Promise.race([call, aborted]) };
    } catch (error) {
      if (error instanceof TimedOut) return { kind: 'timeout', message: `no verdict within ${timeoutMs} ms` };
      return { kind: 'model', message: `the judge's model failed: ${error instanceof Error ? error.message : String(error)}` };
    } finally {
      timers.clearTimeout(timer);
      release?.(); // a timed-out call gives its slot back: a hung model cannot starve the judgments after it
    }
  }

  const logged = new Set<JudgeErrorKind>();
  const loggedMembers = new Set<JudgeErrorKind>();
  const failed = (rubric: Rubric, kind: JudgeErrorKind, message: string) => {
    stats.errors[kind]++;
    if (!logged.has(kind)) {
      logged.add(kind);
      warnSafely(logger, `[panoptes] judge: rubric '${rubric.id}': ${message}; its on_error (${rubric.onError}) applies. Later ${kind} errors are counted, not logged.`);
    }
  };

  /** One member's verdict, or why it has none; its usage is counted and spent whatever the answer. */
  async function askMember(member: JudgeMember, rubric: Rubric, input: JudgeInput, judged: string, key: string): Promise<MemberAnswer> {
    const over = budget.reserve(input.sessionId);
    if (over) return { kind: 'budget', message: `the judge's budget of ${over} is spent` };
    stats.calls++;
    const asked = await ask(member.model, { messages: judgeMessages(rubric, judged), jsonSchema: verdictJsonSchema(rubric), rubric, judged, key });
    if ('kind' in asked) return asked;
    const { value, usage } = unwrapAnswer(asked.answer);
    const costUsd = costFor(member.id, usage);
    if (usage) {
      stats.inputTokens += usage.inputTokens;
      stats.outputTokens += usage.outputTokens;
      if (costUsd !== undefined) stats.costUsd += costUsd;
      budget.spend(input.sessionId, usage.inputTokens + usage.outputTokens, costUsd ?? 0);
    }
    const spent = { ...(usage ? { usage } : {}), ...(costUsd === undefined ? {} : { costUsd }) };
    const verdict = readVerdict(rubric, value, judged);
    if (isVerdictProblem(verdict)) return { ...verdict, ...spent };
    return { verdict, ...spent };
  }

  async function judgeOne(rubric: Rubric, input: JudgeInput): Promise<Judgment> {
    const judged = judgedText(rubric.scope, input, limitsFor(rubric));
    const key = judgeCacheKey(rubric, modelId, judged);
    const base = { rubric: rubric.id, scope: rubric.scope, key };
    const spentOf = (usage?: TokenUsage, costUsd?: number) => ({ ...(usage ? { usage } : {}), ...(costUsd === undefined ? {} : { costUsd }) });
    const error = (kind: JudgeErrorKind, message: string, usage?: TokenUsage, costUsd?: number, ensemble?: EnsembleDetail): Judgment => {
      failed(rubric, kind, message);
      return { ...base, outcome: 'error', action: rubric.onError, error: { kind, message }, cached: false, ...spentOf(usage, costUsd), ...(ensemble ? { ensemble } : {}) };
    };
    const decided = (verdict: JudgeVerdict, cached: boolean, usage?: TokenUsage, costUsd?: number, ensemble?: EnsembleDetail): Judgment => ({
      ...base,
      outcome: verdict.verdict,
      action: verdict.verdict === 'pass' ? 'allow' : rubric.onFail,
      verdict,
      cached,
      ...spentOf(usage, costUsd),
      ...(ensemble ? { ensemble } : {}),
    });
    if (rubric.sample < 1 && !(random() < rubric.sample)) {
      stats.skipped++;
      return { ...base, outcome: 'skipped', action: 'allow', cached: false };
    }
    const hit = cache?.get(key);
    if (hit) {
      stats.cacheHits++;
      return decided(hit, true);
    }
    if (single) {
      const answer = await askMember(members[0]!, rubric, input, judged, key);
      if (!('verdict' in answer)) return error(answer.kind, answer.message, answer.usage, answer.costUsd);
      // One verdict object is handed to every judgment the cache answers: frozen, so no caller can change another's.
      if (cache) cache.set(key, deepFreeze(answer.verdict));
      return decided(answer.verdict, false, answer.usage, answer.costUsd);
    }
    // An ensemble: every member at once, each under its own key (so each can replay its own cassette) and timeout.
    const answers = await Promise.all(
      members.map(async (member) => {
        const memberKey = judgeCacheKey(rubric, member.id, judged);
        return { member, key: memberKey, answer: await askMember(member, rubric, input, judged, memberKey) };
      }),
    );
    const usage = sumUsage(answers.map(({ answer }) => answer.usage));
    const costs = answers.map(({ answer }) => answer.costUsd).filter((cost) => cost !== undefined);
    const costUsd = costs.length === 0 ? undefined : costs.reduce((sum, cost) => sum + cost, 0);
    const memberJudgments: MemberJudgment[] = answers.map(({ member, key: memberKey, answer }) => ({
      modelId: member.id,
      key: memberKey,
      outcome: 'verdict' in answer ? answer.verdict.verdict : 'error',
      ...('verdict' in answer ? { score: answer.verdict.score, confidence: answer.verdict.confidence } : { error: { kind: answer.kind, message: answer.message } }),
      ...spentOf(answer.usage, answer.costUsd),
    }));
    const answered = answers.flatMap(({ member, answer }) => ('verdict' in answer ? [{ modelId: member.id, verdict: answer.verdict }] : []));
    for (const { member, answer } of answers) {
      if ('verdict' in answer) continue;
      stats.memberErrors[answer.kind]++;
      if (!loggedMembers.has(answer.kind)) {
        loggedMembers.add(answer.kind);
        warnSafely(logger, `[panoptes] judge: rubric '${rubric.id}': ensemble member '${member.id}' gave no verdict (${answer.kind}: ${answer.message}); it is left out of the vote. Later member ${answer.kind} errors are counted, not logged.`);
      }
    }
    if (answered.length < quorum) {
      const kinds = [...new Set(answers.flatMap(({ answer }) => ('kind' in answer ? [answer.kind] : [])))];
      const detail: EnsembleDetail = { mode, agreement: 0, members: memberJudgments };
      return error(kinds.length === 1 ? kinds[0]! : 'model', `${answered.length} of ${members.length} ensemble members gave a verdict; the quorum is ${quorum}`, usage, costUsd, detail);
    }
    const { agreement, ...verdict } = combineVerdicts(rubric, mode, answered);
    if (cache) cache.set(key, deepFreeze(verdict));
    return decided(verdict, false, usage, costUsd, { mode, agreement, members: memberJudgments });
  }

  async function judge(reference: string | Rubric, input: JudgeInput): Promise<Judgment> {
    const rubric = resolve(reference);
    stats.judgments++;
    const started = telemetry.now();
    const span = telemetry.startSpan(`${SPAN.judge} ${rubric.id}`, {
      [ATTR.operationName]: SPAN.judge,
      [ATTR.requestModel]: modelId,
      [ATTR.judgeRubric]: rubric.id,
      [ATTR.judgeScope]: rubric.scope,
      ...(input.sessionId === undefined ? {} : { [ATTR.conversationId]: input.sessionId, [ATTR.sessionId]: input.sessionId }),
      ...(input.call ? { [ATTR.toolName]: input.call.name } : {}),
    });
    let judgment: Judgment;
    try {
      judgment = await judgeOne(rubric, input);
    } catch (unexpected) {
      // A bug of ours (or a cache that throws) must not fail the agent's call: an error, resolved by on_error.
      telemetry.miss('judge', unexpected);
      judgment = { rubric: rubric.id, scope: rubric.scope, key: '', outcome: 'error', action: rubric.onError, error: { kind: 'model', message: String(unexpected) }, cached: false };
      failed(rubric, 'model', `the judge failed: ${String(unexpected)}`);
    }
    const attributes = {
      [ATTR.judgeRubric]: rubric.id,
      [ATTR.judgeOutcome]: judgment.outcome,
      [ATTR.judgeCached]: judgment.cached,
      ...(judgment.error ? { [ATTR.judgeError]: judgment.error.kind } : {}),
    };
    telemetry.setAttributes(span, {
      ...attributes,
      [ATTR.judgeAction]: judgment.action,
      ...(judgment.verdict ? { [ATTR.judgeScore]: judgment.verdict.score } : {}),
      ...(judgment.usage ? { [ATTR.inputTokens]: judgment.usage.inputTokens, [ATTR.outputTokens]: judgment.usage.outputTokens } : {}),
      ...(judgment.costUsd === undefined ? {} : { [ATTR.judgeCostUsd]: judgment.costUsd }),
      ...(judgment.ensemble ? { [ATTR.judgeEnsemble]: judgment.ensemble.mode, [ATTR.judgeAgreement]: judgment.ensemble.agreement } : {}),
    });
    telemetry.end(span);
    telemetry.count('judgments', attributes);
    if (judgment.costUsd !== undefined) telemetry.count('judgeCost', { [ATTR.judgeRubric]: rubric.id, [ATTR.requestModel]: modelId }, judgment.costUsd);
    telemetry.duration('judgeDuration', started, { [ATTR.judgeRubric]: rubric.id });
    return judgment;
  }

  return {
    rubrics,
    modelId,
    rubric: (id) => byId.get(id),
    applicable: (scope, input) => rubrics.filter((rubric) => rubricApplies(rubric, scope, input)),
    judge,
    judgeScope: (scope, input) => Promise.all(rubrics.filter((rubric) => rubricApplies(rubric, scope, input)).map((rubric) => judge(rubric, input))),
    keyOf: (reference, input) => {
      const rubric = resolve(reference);
      return judgeCacheKey(rubric, modelId, judgedText(rubric.scope, input, limitsFor(rubric)));
    },
    stats: () => ({ ...stats, errors: { ...stats.errors } }),
  };
}

function deepFreeze(verdict: JudgeVerdict): JudgeVerdict {
  for (const criterion of verdict.criteria) Object.freeze(Object.freeze(criterion).evidence);
  Object.freeze(verdict.criteria);
  Object.freeze(verdict.failedCriteria);
  return Object.freeze(verdict);
}

interface JudgeMember {
  id: string;
  model: JudgeModel;
}

type MemberAnswer = ({ verdict: JudgeVerdict } | { kind: JudgeErrorKind; message: string }) & { usage?: TokenUsage; costUsd?: number };

/** The judge's members: its one model, or an ensemble's models with distinct ids. */
function judgeMembers(model: JudgeModel | undefined, models: readonly JudgeModel[] | undefined): JudgeMember[] {
  const fix = 'Pass a judge model: judgeModel(...) from panoptes/langchain or panoptes/ai-sdk, scriptedJudge(fn) or recordedJudge(cassette).';
  if (models === undefined) {
    if (typeof model !== 'function') throw new InvalidOptionError({ parameter: 'model', value: model, fix });
    return [{ id: model.modelId ?? 'model', model }];
  }
  if (model !== undefined) throw new InvalidOptionError({ parameter: 'models', value: 'model and models', fix: 'Pass either one model (`model`) or an ensemble (`models`), not both.' });
  if (!Array.isArray(models) || models.length === 0) throw new InvalidOptionError({ parameter: 'models', value: models, fix: 'Pass a non-empty list of judge models.' });
  const seen = new Set<string>();
  return models.map((member, index) => {
    if (typeof member !== 'function') throw new InvalidOptionError({ parameter: `models[${index}]`, value: member, fix });
    const id = member.modelId ?? `model${index + 1}`;
    if (seen.has(id)) throw new InvalidOptionError({ parameter: `models[${index}]`, value: id, fix: "Give each member its own modelId (namedJudgeModel(id, fn), scriptedJudge(fn, { modelId })): the ids are part of the ensemble's cache key." });
    seen.add(id);
    return { id, model: member };
  });
}

function checkPrices(prices: PriceTable): void {
  for (const [name, price] of Object.entries(prices)) {
    const ok = typeof price === 'object' && price !== null && [price.input, price.output].every((value) => typeof value === 'number' && Number.isFinite(value) && value >= 0);
    if (!ok) throw new InvalidOptionError({ parameter: `prices['${name}']`, value: price, fix: 'Give { input, output }: US dollars per million tokens, numbers >= 0, e.g. { input: 0.15, output: 0.6 }.' });
  }
}

function sumUsage(usages: ReadonlyArray<TokenUsage | undefined>): TokenUsage | undefined {
  const known = usages.filter((usage) => usage !== undefined);
  if (known.length === 0) return undefined;
  return known.reduce((sum, usage) => ({ inputTokens: sum.inputTokens + usage.inputTokens, outputTokens: sum.outputTokens + usage.outputTokens }), { inputTokens: 0, outputTokens: 0 });
}
