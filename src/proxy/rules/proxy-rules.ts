/**
 * A rulebase in the proxy: the sentinel decides every tool call of an upstream answer before the client sees it, from
 * the facts the conversation's requests carry. The proxy runs no tool, so it fetches nothing: a data tool's result
 * becomes facts when the client sends it back (a `tool` message, a `function_call_output` item, a `tool_result`
 * block) for a call this proxy let through, once per result, as the in-process adapters record the results of the
 * calls they guarded; the user's words count for `given` parameters, and a plain yes after a question the refusal
 * told the model to ask records that confirmation. The conversation's last exchange (the user's last message and the
 * assistant's words it answered) goes to the sentinel as in-process hosts pass it, so a grounded confirmation counts a
 * yes only for a call whose named arguments that message stated, once. Every message is also a provenance source, in message order and
 * once: the system prompt and the user's messages trusted, each tool result with the trust the rulebase's `source`
 * declarations give it, including results of calls this proxy did not let through (as sources only, not facts).
 * @module
 */
import type { Clock } from '../../clock/index.js';
import { systemClock } from '../../clock/index.js';
import { createFactStore, MAX_EXCHANGE_TEXT, type Exchange, type TrustOf } from '../../facts/index.js';
import { hashString } from '../../hash/cyrb53.js';
import { createSentinel, exchangeOf, factSummaryBlock, needsOnlyApproval, type CheckResult, type ConversationTurn, type Sentinel, type ToolHandler } from '../../guards/index.js';
import { isGrounded } from '../../guards/grounded-confirmation.js';
import type { ChatMessage, ToolCall } from '../../messages/index.js';
import type { ToolGuard, ToolGuardVerdict } from '../../monitor/index.js';
import { trustOfResult, type Rulebase, type Value } from '../../rules/index.js';
import { sentinelJudge, type Judge } from '../../judge/index.js';
import { createMemorySessionStore, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_TTL_MS } from '../../store/index.js';
import { isPlainYes } from '../../grounding/index.js';
import { CANNOT_FETCH, proxyRefusalText } from './refusal-text.js';
import { recordedResults, recordUnverifiedResult, resultKey, resultText } from './result-sources.js';

/** Most calls a session remembers as let through and not yet answered; past it the oldest is forgotten. */
export const MAX_OPEN_CALLS = 256;

/** Options of {@link createProxyRules}. */
export interface ProxyRulesOptions {
  rulebase: Rulebase;
  /** Refuse literal arguments nothing in the conversation established (the sentinel's `strict`). @default false */
  strict?: boolean;
  /** A call to a tool with no guard that is not a data tool. @default 'deny' (guards fail closed) */
  unguardedTools?: 'allow' | 'deny';
  /** A conversation untouched for this long is forgotten, facts and all. @default 3_600_000 (1 hour) */
  ttlMs?: number;
  /** Most conversations kept; past it the least recently used is forgotten. @default 10_000 */
  maxSessions?: number;
  /** @default systemClock */
  clock?: Clock;
  /**
   * Put the session's known facts in the system prompt of each request (`[KNOWN FACTS]`, as the in-process hosts do),
   * so the model reads what the rules already know instead of asking for it again. @default true
   */
  factSummary?: boolean;
  /**
   * Answers the rulebase's `judged(name)` conditions with the rubric `name` (`sentinelJudge`), judged on the call and
   * the session's latest request: pass `yes`, fail `no`, an error its `on_error` (`ask` holds the call for the user).
   * Without one, `judged(...)` asks the user. @default none
   */
  judge?: Judge;
  /** Longest the rules wait for one `judged(...)` answer before it counts as unknown (the user is asked). @default 26000 */
  judgeTimeoutMs?: number;
}

/** The rules of one workflow in the proxy, per session. */
export interface ProxyRules {
  readonly rulebase: Rulebase;
  /**
   * Takes in what a request carries, once per session and request, before its answer is decided: the user's words,
   * the results of calls this proxy let through (each recorded once, however many requests repeat it), and the
   * user's plain yes to the question a refusal asked for.
   */
  observe(sessionId: string, messages: readonly ChatMessage[]): void;
  /**
   * What the user received of the session's latest answer (its text, refusal questions included). A request that
   * carries no assistant text before its last user message (a Responses API continuation by `previous_response_id`
   * carries only the new items) answers this text: a grounded confirmation reads it as the message the yes answered.
   */
  noteAnswer(sessionId: string, text: string): void;
  /** The guard of the session's next answer: the rules decide each call the workflow allows. */
  guard(sessionId: string): ToolGuard;
  /** The session's sentinel (its facts), created on first use; for tests and embedding. */
  sentinel(sessionId: string): Sentinel;
  /**
   * The block of known facts for the session's next request (`factSummary`), or `undefined` when it is off or the
   * summary failed (`onError` is told; the request goes on without it).
   */
  factSummary(sessionId: string, onError: (error: unknown) => void): string | undefined;
}

/** What the proxy keeps of one conversation beside its sentinel. */
interface RulesSession {
  sentinel: Sentinel;
  /** Calls let through and not yet answered, by call id (or `#name` for a call without one), oldest first. */
  open: Map<string, ToolCall>;
  /** Refusals that wait for the user's yes (the calls of one answer can ask several questions). */
  asked: CheckResult[];
  /** Ids of the calls the rules refused: an output for one is the proxy's own refusal (a Responses continuation), not a tool's. */
  refused: Set<string>;
  /** The tool results recorded, so a request that repeats the history records none twice. */
  recorded: ReturnType<typeof recordedResults>;
  /** What the user received of the latest answer (cut to {@link MAX_EXCHANGE_TEXT}), for requests that do not carry it. */
  lastAnswer?: string;
  /** What a `judged(...)` condition reads of the conversation: the latest request's user messages and last tool results. */
  judged: readonly ChatMessage[];
}

/** Tool results a `judged(...)` condition is shown at most (a rubric reads the last 3 unless it says otherwise). */
const JUDGED_TOOL_RESULTS = 16;

/**
 * Creates the rules of the proxy over one rulebase. Data tools get a handler that never runs a tool: a proof that
 * needs a fact nobody read yet is blocked, and the model is told which call to make first.
 * @throws {InvalidOptionError} for the options `createSentinel` refuses.
 * @example
 * const rules = createProxyRules({ rulebase: await loadRulebase('refunds.rules') });
 * const proxy = createProxy({ upstream, monitor, rules });
 */
export function createProxyRules({ rulebase, strict = false, unguardedTools = 'deny', ttlMs = DEFAULT_SESSION_TTL_MS, maxSessions = DEFAULT_MAX_SESSIONS, clock = systemClock, factSummary = true, judge, judgeTimeoutMs = DEFAULT_RULES_JUDGE_TIMEOUT_MS }: ProxyRulesOptions): ProxyRules {
  const tools: Record<string, ToolHandler> = {};
  for (const tool of rulebase.dataByTool.keys()) {
    tools[tool] = {
      execute: () => {
        throw new Error(`${CANNOT_FETCH}; the client must call ${tool} and send its result back`);
      },
    };
  }
  const options = { rulebase, tools, clock, strict, unguardedTools };
  createSentinel({ ...options, facts: createFactStore({ clock }) }); // the options fail at start, not at the first call
  // Trust of the results of calls this proxy did not let through (those it did go through the sentinel's own).
  const trustOf = trustOfResult(rulebase.sources, 'untrusted');
  const sessions = createMemorySessionStore<RulesSession>({ ttlMs, maxSessions, clock });
  const sessionOf = (sessionId: string): RulesSession => {
    let session = sessions.get(sessionId) as RulesSession | undefined;
    if (!session) {
      const created: RulesSession = { sentinel: undefined as unknown as Sentinel, open: new Map(), asked: [], refused: new Set(), recorded: recordedResults(), judged: [] };
      const judging = judge ? { judge: sentinelJudge(judge, { messages: () => created.judged, sessionId }), judgeTimeoutMs } : {};
      created.sentinel = createSentinel({ ...options, ...judging, facts: createFactStore({ clock }) });
      sessions.set(sessionId, (session = created));
    }
    return session;
  };

  return {
    rulebase,
    sentinel: (sessionId) => sessionOf(sessionId).sentinel,
    factSummary: (sessionId, onError) => (factSummary ? factSummaryBlock(sessionOf(sessionId).sentinel, undefined, onError) : undefined),
    observe(sessionId, messages) {
      const session = sessionOf(sessionId);
      const { sentinel } = session;
      const { provenance } = sentinel.facts;
      if (judge) session.judged = judgedMessages(messages);
      // The tool of each call id, from the assistant turns this request carries (a result names only its call).
      const toolOf = new Map<string, string>();
      // The user's and the assistant's words, in order: a grounded confirmation reads the user's last yes and the message it answered.
      const turns: ConversationTurn[] = [];
      // In message order, so the provenance log's steps follow the conversation; each message once, however many
      // requests repeat it (the log skips a message text it has, `recorded` a result it has).
      for (const message of messages) {
        if (message.role === 'system') provenance.recordMessage('system', message.content);
        else if (message.role === 'user') {
          sentinel.facts.noteUserWords([message.content]);
          turns.push({ role: 'user', text: message.content });
        } else if (message.role === 'assistant') {
          if (message.content !== '') turns.push({ role: 'assistant', text: message.content });
          for (const call of message.toolCalls ?? []) if (call.id !== undefined) toolOf.set(call.id, call.name);
        } else if (message.role === 'tool') observeResult(session, message, toolOf, trustOf);
      }
      // A request that repeats the history keeps the exchange (and whether its yes was spent): its id is the user's message.
      const exchange = exchangeOf(turns);
      if (exchange !== undefined) sentinel.facts.noteExchange(exchange.asked === '' && session.lastAnswer ? answeringLast(exchange, session.lastAnswer) : exchange);
      // The user's reply to the question asked: the request ends with it, after the answer that asked.
      const asked = session.asked;
      if (asked.length === 0) return;
      const last = messages.at(-1);
      if (last?.role !== 'user') return;
      session.asked = [];
      if (isPlainYes(last.content)) for (const check of asked) confirm(rulebase, sentinel, check);
    },
    noteAnswer(sessionId, text) {
      sessionOf(sessionId).lastAnswer = text.slice(0, MAX_EXCHANGE_TEXT);
    },
    guard(sessionId) {
      const session = sessionOf(sessionId);
      return async (call): Promise<ToolGuardVerdict> => {
        const check = await session.sentinel.check(call.name, call.args);
        if (check.allowed) {
          remember(session, call);
          return ALLOWED;
        }
        if (call.id !== undefined) {
          session.refused.add(call.id);
          if (session.refused.size > MAX_OPEN_CALLS) session.refused.delete(session.refused.values().next().value!);
        }
        const reason = proxyRefusalText(check, session.sentinel.toolNames, rulebase.askables);
        if (!asksOnly(check)) return { allowed: false, reason };
        // Bounded: an answer asks at most once per call, and the user's next message clears them.
        if (session.asked.length < MAX_OPEN_CALLS) session.asked.push(check);
        // The user reads the question in the call's place and answers it in their next message; the model reads the reason.
        const question = questionOf(check);
        return question === undefined ? { allowed: false, reason } : { allowed: false, reason, userMessage: question };
      };
    },
  };
}

const ALLOWED: ToolGuardVerdict = { allowed: true };

/**
 * Default of `judgeTimeoutMs`: past the longest judgment `panoptes serve` allows (25 s), so the judge's own timeout
 * and its rubric's `on_error` decide first.
 */
export const DEFAULT_RULES_JUDGE_TIMEOUT_MS = 26_000;

/** What a `judged(...)` condition reads of a request: its user messages and its last tool results (what a tool_call rubric is shown). */
function judgedMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  const results = new Set<ChatMessage>(messages.filter((message) => message.role === 'tool').slice(-JUDGED_TOOL_RESULTS));
  return messages.filter((message) => message.role === 'user' || results.has(message));
}

type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

/**
 * Takes in one tool result, once: the result of a call this proxy let through is recorded as the in-process adapters
 * record theirs (facts and provenance); any other is a provenance source only. An error result changed nothing.
 */
function observeResult(session: RulesSession, message: ToolMessage, toolOf: ReadonlyMap<string, string>, trustOf: TrustOf): void {
  const key = openKey(session, message);
  const call = key === undefined ? undefined : session.open.get(key);
  if (message.isError) {
    if (call !== undefined) session.open.delete(key!);
    return;
  }
  if (message.toolCallId !== undefined && session.refused.has(message.toolCallId)) return;
  if (!session.recorded.firstTime(resultKey(message))) return;
  if (call !== undefined) {
    session.open.delete(key!);
    session.sentinel.recordResult(call.name, call.args, { ok: true, result: resultText(message.content) });
    return;
  }
  // Not a call this proxy let through: no facts, but its values are still sources (provenance must not fail open).
  const tool = message.toolCallId === undefined ? message.name : toolOf.get(message.toolCallId);
  recordUnverifiedResult(session.sentinel.facts.provenance, message, tool, trustOf);
}

/** Remembers a call let through, so its result is recorded when the client sends it back. */
function remember(session: RulesSession, call: ToolCall): void {
  const key = call.id ?? `#${call.name}`;
  session.open.delete(key);
  session.open.set(key, call);
  if (session.open.size > MAX_OPEN_CALLS) session.open.delete(session.open.keys().next().value!);
}

/** The open call a result answers: by its call id, else (a legacy `function` message) by the tool's name. */
function openKey(session: RulesSession, message: ToolMessage): string | undefined {
  if (message.toolCallId !== undefined) return message.toolCallId;
  return message.name === undefined ? undefined : `#${message.name}`;
}

/**
 * An exchange whose request did not carry what the user answered, read as answering the session's latest answer. Its
 * id names that answer too: such a request holds one user message, so its position alone would make every "yes" the
 * same exchange, and a yes spent on one call would stay spent for the next question.
 */
function answeringLast(exchange: Exchange, lastAnswer: string): Exchange {
  return { ...exchange, id: `${exchange.id}@${hashString(lastAnswer).toString(36)}`, asked: lastAnswer };
}

/** Whether a refusal waits on nothing but the user's answers (incidental failures of other alternatives aside). */
function asksOnly(check: CheckResult): boolean {
  if (needsOnlyApproval(check)) return true;
  const blockers = check.blockers.filter((blocker) => !(blocker.kind === 'condition' && blocker.decisive === false));
  return check.status === 'blocked' && blockers.length > 0 && blockers.every((blocker) => blocker.kind === 'ask');
}

/**
 * The user-facing text of a refusal that waits only on the user: its questions, each once, with their variables
 * filled. `undefined` when a question still has an unknown in it (the model has to find it out first).
 */
function questionOf(check: CheckResult): string | undefined {
  const asks = check.blockers.flatMap((blocker) => (blocker.kind === 'ask' ? [blocker] : []));
  if (asks.length === 0 || asks.some((ask) => ask.args.some((arg) => arg === null))) return undefined;
  return [...new Set(asks.map((ask) => ask.question))].join('\n');
}

/**
 * Records the user's yes: a confirmation of the exact call it was asked for, and every other question asked. A grounded
 * confirmation is not recorded here: the sentinel counts the yes itself, for a call whose named arguments the message
 * the user answered stated (the exchange `observe` notes).
 */
function confirm(rulebase: Rulebase, sentinel: Sentinel, check: CheckResult): void {
  const ungrounded = check.blockers.filter((blocker) => !(blocker.kind === 'ask' && isGrounded(rulebase.askables.get(blocker.predicate))));
  sentinel.recordApproval({ ...check, blockers: ungrounded });
  for (const blocker of ungrounded) {
    if (blocker.kind !== 'ask' || blocker.call !== undefined || blocker.args.some((arg) => arg === null)) continue;
    sentinel.facts.assert(blocker.predicate, blocker.args as Value[], { source: 'user' });
  }
}
