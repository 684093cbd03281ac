import type { ChatMessage, ToolCall } from '../messages/index.js';
import type { ConditionJudge } from '../guards/index.js';
import type { JudgeInput } from './input.js';
import type { Judge, Judgment } from './judge.js';

/** What a host does with a judged action: run it, refuse it (the model reads why), or ask the user first. */
export type JudgedDecision = 'allow' | 'deny' | 'ask';

/** The decision over every rubric that applied, with the reasons and the judgments behind it. */
export interface JudgedOutcome {
  decision: JudgedDecision;
  /** One line per rubric that did not simply pass, for logs and people: which rubric, what it found, what applies. */
  reasons: string[];
  /** Text for the model when the decision is not `allow`: what the check found, without rubric internals. */
  message?: string;
  /** Rubrics that failed with `on_fail: warn`: the action goes on, the host may log or show them. */
  warnings: string[];
  judgments: Judgment[];
}

/** What a host passes to judge a tool call before it runs. */
export interface JudgeToolCallInput {
  call: ToolCall;
  messages: readonly ChatMessage[];
  sessionId?: string;
  state?: string;
  turn?: number;
}

/**
 * Judges a tool call before it runs with every `tool_call` rubric that applies, and says what the host should do:
 * `deny` when a rubric blocks or intervenes (or cannot be judged and its `on_error` is `deny`), `ask` when one asks,
 * else `allow`. The strictest answer wins. Never throws for the judge's failures: they come back through `on_error`.
 * @example
 * const { decision, message } = await judgeToolCall(judge, { call: { name: 'send_email', args }, messages, sessionId });
 * if (decision === 'deny') return toolError(message);
 */
export async function judgeToolCall(judge: Judge, { call, messages, sessionId, state, turn }: JudgeToolCallInput): Promise<JudgedOutcome> {
  const input: JudgeInput = { call, messages, ...(sessionId === undefined ? {} : { sessionId }), ...(state === undefined ? {} : { state }), ...(turn === undefined ? {} : { turn }) };
  return decide(await judge.judgeScope('tool_call', input), judge);
}

/**
 * Judges a response with every `turn` rubric that applies, before the host returns it where it can (a non-streamed
 * or held response): `deny` means withhold it or ask the model again, `ask` means let the user decide.
 */
export async function judgeTurn(judge: Judge, { response, messages, sessionId, state, turn }: { response: string; messages: readonly ChatMessage[]; sessionId?: string; state?: string; turn?: number }): Promise<JudgedOutcome> {
  const input: JudgeInput = { response, messages, ...(sessionId === undefined ? {} : { sessionId }), ...(state === undefined ? {} : { state }), ...(turn === undefined ? {} : { turn }) };
  return decide(await judge.judgeScope('turn', input), judge);
}

/** The decision over judgments of one action: deny beats ask beats allow. */
export function decideJudgments(judgments: readonly Judgment[], judge?: Pick<Judge, 'rubric'>): JudgedOutcome {
  return decide([...judgments], judge);
}

function decide(judgments: Judgment[], judge?: Pick<Judge, 'rubric'>): JudgedOutcome {
  let decision: JudgedDecision = 'allow';
  const reasons: string[] = [];
  const warnings: string[] = [];
  const forModel: string[] = [];
  for (const judgment of judgments) {
    const effect = effectOf(judgment);
    if (judgment.outcome === 'pass' || judgment.outcome === 'skipped') continue;
    const reason = describe(judgment);
    reasons.push(reason);
    if (judgment.action === 'warn') warnings.push(reason);
    if (effect !== 'allow') forModel.push(modelText(judgment, judge));
    if (effect === 'deny' || (effect === 'ask' && decision === 'allow')) decision = effect;
  }
  return { decision, reasons, warnings, judgments, ...(decision === 'allow' ? {} : { message: forModel.join(' ') }) };
}

function effectOf(judgment: Judgment): JudgedDecision {
  switch (judgment.action) {
    case 'block':
    case 'intervene':
    case 'deny':
      return 'deny';
    case 'ask':
      return 'ask';
    default:
      return 'allow';
  }
}

function describe(judgment: Judgment): string {
  if (judgment.error) return `rubric '${judgment.rubric}' could not be judged (${judgment.error.kind}: ${judgment.error.message}); on_error: ${judgment.action}`;
  const verdict = judgment.verdict!;
  const details = verdict.criteria.map((criterion) => `${criterion.id} ${criterion.score}${criterion.reasoning ? ` (${criterion.reasoning})` : ''}`).join('; ');
  return `rubric '${judgment.rubric}' failed with score ${verdict.score.toFixed(2)}${details ? `: ${details}` : ''}; on_fail: ${judgment.action}`;
}

function modelText(judgment: Judgment, judge?: Pick<Judge, 'rubric'>): string {
  const description = judge?.rubric(judgment.rubric)?.description ?? `the check '${judgment.rubric}'`;
  if (judgment.error) return `This action could not be checked against a policy (${description}).`;
  const reasoning = judgment.verdict!.criteria.filter((criterion) => criterion.reasoning).map((criterion) => criterion.reasoning);
  return `A policy check did not pass: ${description}${reasoning.length ? ` ${reasoning.join(' ')}` : ''}`;
}

/** The answer of a `judged(rubric)` condition: holds, does not hold, or ask the user (the judge could not say). */
export type JudgedAnswer = boolean | 'ask';

/** What a rule engine calls to settle `judged(rubric)`: the rubric's name and the action under judgment. */
export interface JudgedCondition {
  (rubric: string, input: JudgeInput): Promise<JudgedAnswer>;
  /** The rubric names the judge has, so a rulebase can be checked for unknown names when it loads. */
  readonly rubrics: readonly string[];
}

/**
 * Builds the callback that answers a rule language's `judged(name)` condition from a judge: `true` when the rubric
 * passes (or was not sampled), `false` when it fails; when it cannot be judged, its `on_error` decides (`allow`:
 * true, `deny`: false, `ask`: 'ask'). A name the judge does not have answers `false` (guards fail closed) and is
 * logged once.
 * @example
 * const condition = judgeCondition(judge);
 * await condition('request_covers_action', { messages, call, sessionId }); // true | false | 'ask'
 */
export function judgeCondition(judge: Judge, { logger = console }: { logger?: { warn(message: string): void } } = {}): JudgedCondition {
  const unknown = new Set<string>();
  const condition = async (rubric: string, input: JudgeInput): Promise<JudgedAnswer> => {
    if (!judge.rubric(rubric)) {
      if (!unknown.has(rubric)) {
        unknown.add(rubric);
        try {
          logger.warn(`[panoptes] judged(${rubric}): the judge has no rubric of that name (it has ${judge.rubrics.map((known) => known.id).join(', ') || 'none'}); the condition is false.`);
        } catch {
          // A logger that throws is not our failure to report.
        }
      }
      return false;
    }
    const judgment = await judge.judge(rubric, { ...input, rule: input.rule ?? rubric });
    if (judgment.outcome === 'pass' || judgment.outcome === 'skipped') return true;
    if (judgment.outcome === 'fail') return false;
    return judgment.action === 'allow' ? true : judgment.action === 'ask' ? 'ask' : false;
  };
  return Object.assign(condition, { rubrics: judge.rubrics.map((rubric) => rubric.id) });
}

/**
 * The sentinel's `judge` option from a judge: a rule's `judged(name)` is the rubric `name`, judged on the call under
 * check and the conversation `messages()` returns (the host's current one; the judge reads the user's request there).
 * A pass is `yes`, a fail `no`, and a rubric that could not be judged follows its `on_error` (`ask` holds the call for
 * the user). A name the judge does not have is `no`: guards fail closed.
 * @example
 * const sentinel = createSentinel({ rulebase, judge: sentinelJudge(judge, { messages: () => conversation }) });
 */
export function sentinelJudge(judge: Judge, { messages, sessionId, logger }: { messages?: () => readonly ChatMessage[]; sessionId?: string; logger?: { warn(message: string): void } } = {}): ConditionJudge {
  const condition = judgeCondition(judge, logger ? { logger } : {});
  return async ({ name, tool, args }) => {
    const answer = await condition(name, { call: { name: tool, args: { ...args } }, ...(messages ? { messages: messages() } : {}), ...(sessionId ? { sessionId } : {}) });
    return answer === true ? 'yes' : answer === false ? 'no' : 'unknown';
  };
}
