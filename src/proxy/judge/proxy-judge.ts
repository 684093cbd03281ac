/**
 * The judge in the proxy: `tool_call` rubrics decide each call the workflow and the rules allow, before the client
 * gets the answer (a guard after theirs); `turn` rubrics judge a response's text, before it is released where it can
 * still be withheld, else for the session's next call. Every judgment is counted by rubric and outcome, every judge
 * error as a miss by its kind. A call the judge asks about is shown to the user as a question; the user's plain yes in
 * the next request approves that exact call once, as the proxy's rules read a yes. A rubric that names rules
 * (`applies_to.rules`) is left to them: the rulebase's `judged(...)` asks it (`createProxyRules`' `judge`).
 * `conversation` rubrics judge a session's transcript in the background after the answers it is delivered
 * (`createConversationJudge`, one per workflow), and a finding becomes a note on the session's next call.
 * @module
 */
import type { ChatMessage, ToolCall } from '../../messages/index.js';
import type { Logger, TextWatch, ToolGuard, ToolGuardVerdict } from '../../monitor/index.js';
import { LruMap } from '../../embed/lru.js';
import { createConversationJudge, decideJudgments, DEFAULT_CONVERSATION_IN_FLIGHT, stableJson, type ConversationJudge, type Judge, type JudgedOutcome, type JudgeInput, type Judgment, type Rubric, type RubricScope } from '../../judge/index.js';
import { PROXY_METRICS, type ProxyMetrics } from '../metrics.js';
import { isPlainYes } from '../../grounding/index.js';

/** Sessions whose pending questions and approvals are kept; the least recently used is forgotten past it. */
const MAX_SESSIONS = 10_000;
/** Calls one session keeps asked about, or approved and not yet made. */
const MAX_CALLS = 64;
/** Longest text of a call's arguments in the question the user reads. */
const QUESTION_ARGS = 300;

/** What the proxy asks of its judge for one request: the session, the request's messages, and where counts go. */
export interface JudgeContext {
  /** The session, under its workflow: approvals are kept per workflow and session. */
  sessionKey: string;
  sessionId: string;
  /** The workflow that serves the request: each workflow counts its sessions' turns for conversation rubrics. */
  workflow: string;
  messages: () => readonly ChatMessage[];
  /** The workflow state the session is in, for rubrics with `applies_to.states`. */
  state?: string | undefined;
  metrics: ProxyMetrics;
  /** Set when a `tool_call` or `turn` rubric warned during the request: every conversation rubric is then due. */
  warned?: boolean;
}

/** Puts a conversation judgment's guidance into the session's next call (the monitor's notes, shared through its store). */
export type NoteGuidance = (sessionId: string, text: string) => Promise<void>;

/** The judge's decision on a response's text: what the model reads of it, when it is not `allow`. */
export interface TurnVerdict {
  decision: JudgedOutcome['decision'];
  /** The model's text: what the check found (no rubric internals). */
  message: string;
}

/** The judge as the proxy uses it. */
export interface ProxyJudge {
  readonly judge: Judge;
  /** Whether some rubric judges responses (`turn`): streamed text is held for it under `text_policy: hold`. */
  readonly judgesTurns: boolean;
  /** Whether some rubric applies only in given workflow states: the session's state is read for it. */
  readonly needsState: boolean;
  /** Takes in a request: the user's plain yes approves the calls the judge asked about in the answer before. */
  observe(sessionKey: string, messages: readonly ChatMessage[]): void;
  /** The guard that judges each call the workflow and the rules allow. */
  guard(context: JudgeContext): ToolGuard;
  /** Judges a response's text; `undefined` for text that passed or nothing to judge (no text, no turn rubric). */
  turn(context: JudgeContext, text: string): Promise<TurnVerdict | undefined>;
  /** A text watch that only holds (no pattern): streamed text waits for the turn judgment; a bound passed is a miss. */
  holdingWatch(metrics: ProxyMetrics, inner: TextWatch | undefined): TextWatch;
  /** Whether some rubric judges the conversation: each delivered answer is counted for it. */
  readonly judgesConversations: boolean;
  /**
   * Counts an answer delivered to the session and, when a conversation rubric is due (its `every_turns`, or the
   * request warned), judges `transcript()` in the background. Returns at once. A finding that fails (or cannot be
   * judged with `on_error: deny` or `ask`) goes to `note` as soon as the judgment ends; a due judgment past the bounds
   * (one per session, 4 per workflow at once) is skipped and counted as a miss (`busy`).
   */
  conversationTurn(context: JudgeContext, transcript: () => readonly ChatMessage[], note: NoteGuidance): void;
  /** Resolves once the conversation judgments in flight are done (tests, shutdown). */
  settled(): Promise<void>;
}

interface Approvals {
  /** Calls the user was asked about, by key: a plain yes in the next request approves them. */
  asked: Set<string>;
  /** Calls approved and not yet made: each lets its exact call through once, unjudged. */
  approved: Set<string>;
}

/**
 * The proxy's judge over a `Judge` (`createJudge`). Never throws for the judge's failures: a judgment that cannot be
 * made follows its rubric's `on_error`, and is counted as a miss.
 */
export function createProxyJudge(judge: Judge, { logger = console }: { logger?: Logger } = {}): ProxyJudge {
  const sessions = new LruMap<string, Approvals>(MAX_SESSIONS);
  // A rubric that names rules (`applies_to.rules`) is their question, asked through their `judged(...)` only.
  const own = (rubric: Rubric) => (rubric.appliesTo.rules?.length ?? 0) === 0;
  const judgesTurns = judge.rubrics.some((rubric) => rubric.scope === 'turn' && own(rubric));
  const needsState = judge.rubrics.some((rubric) => (rubric.appliesTo.states?.length ?? 0) > 0);
  const applicable = (scope: RubricScope, input: JudgeInput) => judge.applicable(scope, input).filter(own);
  /** Every applicable rubric of the scope at once; the strictest answer wins (deny, then ask, then allow). */
  const judgeAll = async (rubrics: readonly Rubric[], input: JudgeInput): Promise<JudgedOutcome> => decideJudgments(await Promise.all(rubrics.map((rubric) => judge.judge(rubric, input))), judge);

  const debug = (line: string) => {
    try {
      logger.debug?.(line);
    } catch {
      // a logger that throws changes nothing
    }
  };
  const record = (judgments: readonly Judgment[], metrics: ProxyMetrics, what: string) => {
    for (const judgment of judgments) {
      metrics.add(PROXY_METRICS.judgments, { rubric: judgment.rubric, scope: judgment.scope, outcome: judgment.outcome, action: judgment.action });
      if (judgment.error) metrics.add(PROXY_METRICS.judgeMisses, { rubric: judgment.rubric, cause: judgment.error.kind });
      if (judgment.outcome === 'pass' || judgment.outcome === 'skipped') continue;
      // No content: the rubric, what was judged, and what came of it. The judge logs its first error of each kind itself.
      debug(`[panoptes proxy] judge: rubric '${judgment.rubric}' on ${what}: ${judgment.outcome}${judgment.error ? ` (${judgment.error.kind})` : ''}, ${judgment.action}`);
    }
  };

  /** The conversation judge of each workflow, made on its first answer (its counters carry the workflow's labels). */
  const conversations = new Map<string, ConversationJudge>();
  const judgesConversations = judge.rubrics.some((rubric) => rubric.scope === 'conversation' && own(rubric));
  /** The judge as the conversation judge sees it: its own rubrics only, and every judgment counted. */
  const counted = (metrics: ProxyMetrics): Judge => ({
    rubrics: judge.rubrics.filter(own),
    modelId: judge.modelId,
    rubric: (id) => judge.rubric(id),
    applicable: (scope, input) => applicable(scope, input),
    judge: async (rubric, input) => {
      const judgment = await judge.judge(rubric, input);
      record([judgment], metrics, 'the conversation');
      return judgment;
    },
    judgeScope: async (scope, input) => {
      const judgments = await judge.judgeScope(scope, input);
      record(judgments, metrics, 'the conversation');
      return judgments;
    },
    keyOf: (rubric, input) => judge.keyOf(rubric, input),
    stats: () => judge.stats(),
  });
  const conversationOf = (workflow: string, metrics: ProxyMetrics, note: NoteGuidance): ConversationJudge => {
    let made = conversations.get(workflow);
    if (made) return made;
    const conversation = createConversationJudge(counted(metrics), {
      logger,
      // Noted in the monitor, whose store every instance of the proxy reads on the session's next call.
      onGuidance: (sessionId, text) => note(sessionId, text),
    });
    conversations.set(workflow, (made = conversation));
    return made;
  };

  return {
    judge,
    judgesTurns,
    needsState,
    judgesConversations,
    conversationTurn(context, transcript, note) {
      if (!judgesConversations) return;
      const { workflow, sessionId, state, warned, metrics } = context;
      const conversation = conversationOf(workflow, metrics, note);
      const skipped = conversation.stats().skipped;
      conversation.turn(sessionId, { messages: transcript, ...(warned ? { warned } : {}), ...(state === undefined ? {} : { state }) });
      if (conversation.stats().skipped > skipped) {
        metrics.add(PROXY_METRICS.judgeMisses, { cause: 'busy' });
        debug(`[panoptes proxy] judge: the conversation of a session was due but not judged: a judgment of it, or ${DEFAULT_CONVERSATION_IN_FLIGHT} in all, were in flight`);
      }
    },
    settled: async () => {
      await Promise.all([...conversations.values()].map((conversation) => conversation.settled()));
    },
    observe(sessionKey, messages) {
      const approvals = sessions.get(sessionKey);
      if (!approvals || approvals.asked.size === 0) return;
      const last = messages.at(-1);
      // Only the user answers a question: a request that ends with a tool result leaves it open.
      if (last?.role !== 'user') return;
      if (isPlainYes(last.content)) for (const key of approvals.asked) bounded(approvals.approved).add(key);
      approvals.asked.clear();
    },
    guard(context) {
      const { sessionKey, sessionId, messages, state, metrics } = context;
      return async (call): Promise<ToolGuardVerdict> => {
        const key = callKey(call);
        if (sessions.get(sessionKey)?.approved.delete(key)) {
          debug(`[panoptes proxy] judge: a call to ${call.name} the user approved went through unjudged`);
          return ALLOWED;
        }
        const rubrics = applicable('tool_call', { call, ...(state === undefined ? {} : { state }) });
        if (rubrics.length === 0) return ALLOWED;
        const outcome = await judgeAll(rubrics, { call, messages: messages(), sessionId, ...(state === undefined ? {} : { state }) });
        record(outcome.judgments, metrics, `a call to ${call.name}`);
        if (outcome.warnings.length > 0) context.warned = true;
        if (outcome.decision === 'allow') return ALLOWED;
        if (outcome.decision === 'deny') return { allowed: false, reason: `The call to ${call.name} was refused, so it did not run. ${outcome.message ?? ''}`.trim() };
        let approvals = sessions.get(sessionKey);
        if (!approvals) sessions.set(sessionKey, (approvals = { asked: new Set(), approved: new Set() }));
        bounded(approvals.asked).add(key);
        return {
          allowed: false,
          reason: `The call to ${call.name} did not run: it needs the user's approval. ${outcome.message ?? ''} The user was asked whether to go ahead; if they answer with a plain yes, make the same call again with the same arguments.`,
          userMessage: questionOf(call),
        };
      };
    },
    async turn(context, text) {
      const { sessionId, messages, state, metrics } = context;
      // A response of tool calls alone has no text to judge: its calls are judged, not an empty answer.
      if (!judgesTurns || text.trim() === '') return undefined;
      const input: JudgeInput = { response: text, sessionId, ...(state === undefined ? {} : { state }) };
      const rubrics = applicable('turn', input);
      if (rubrics.length === 0) return undefined;
      const outcome = await judgeAll(rubrics, { ...input, messages: messages() });
      record(outcome.judgments, metrics, 'a response');
      if (outcome.warnings.length > 0) context.warned = true;
      return outcome.decision === 'allow' ? undefined : { decision: outcome.decision, message: outcome.message ?? '' };
    },
    holdingWatch(metrics, inner) {
      return {
        states: inner?.states ?? [],
        text: (delta) => inner?.text(delta) ?? null,
        overflowed(bound) {
          inner?.overflowed(bound);
          metrics.add(PROXY_METRICS.judgeMisses, { cause: 'hold' });
        },
      };
    },
  };
}

const ALLOWED: ToolGuardVerdict = { allowed: true };

/** A call by its name and arguments: an approval lets that exact call through, not another to the same tool. */
function callKey(call: ToolCall): string {
  return `${call.name}\u0000${stableJson(call.args)}`;
}

/** The question the user reads in the call's place. */
function questionOf(call: ToolCall): string {
  const args = stableJson(call.args);
  const shown = args.length > QUESTION_ARGS ? `${args.slice(0, QUESTION_ARGS)}...` : args;
  return `Before I go ahead: do you want me to run ${call.name} with ${shown}? Answer yes to confirm.`;
}

/** The set, with its oldest entry dropped when it is full (one more is about to be added). */
function bounded(set: Set<string>): Set<string> {
  if (set.size >= MAX_CALLS) set.delete(set.values().next().value!);
  return set;
}
