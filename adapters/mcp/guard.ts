/**
 * The checks around one MCP tool call, shared by `wrapMcpClient` (the calls a client sends) and
 * `createGuardedMcpServer` (the calls a server receives): the decision before the call, and the report of its
 * outcome to the sentinel after.
 * @module
 */
import type { CallToolRequestParams } from '@modelcontextprotocol/sdk/types.js';
import {
  assertSentinelOption,
  guardJudgedToolCall,
  InvalidOptionError,
  isSentinelSessions,
  recordToolResult,
  toolRefusal,
  warnSafely,
  type ChatMessage,
  type Judge,
  type JudgedOutcome,
  type JudgedToolCallDecision,
  type Logger,
  type Monitor,
  type SentinelSource,
} from '../../src/index.js';
import { resultData, resultText, toCoreToolCall, type McpRefusal } from './translate.js';

/** The guards of MCP tool calls, and how a call names its conversation (`CONTEXT`: what else the host knows of the call). */
export interface McpGuardOptions<CONTEXT = void> {
  /** Refuses calls whose workflow state would break a critical constraint (`monitor.beforeTool`). */
  monitor?: Monitor | undefined;
  /**
   * Refuses calls the rulebase does not prove allowed (`sentinel.check`): a sentinel, or per-conversation sentinels
   * from `createSentinelSessions` (the session id picks the conversation's).
   */
  sentinel?: SentinelSource | undefined;
  /** The conversation, or a function of the call: required with `monitor` and with per-conversation sentinels. */
  sessionId?: string | ((params: CallToolRequestParams, context: CONTEXT) => string) | undefined;
  /** Receives the adapter's own failures, once. @default console */
  logger?: Logger | undefined;
  /**
   * Judges each call the workflow and the rules allow with the judge's `tool_call` rubrics (`createJudge`) before it
   * reaches the tool. MCP carries no conversation: the judge reads the call and the results of the last calls of its
   * session that went through this guard, never the user's requests, so a rubric that needs them (was this asked
   * for?) belongs with a host that has the conversation (`guardTools`, the LangChain middleware). `deny` refuses the
   * call; `ask` asks the user through elicitation where the server can (`createGuardedMcpServer` with a client that
   * declared it), else refuses it with the question for the model; `warn` lets it run and logs the warning.
   */
  judge?: Judge | undefined;
}

/**
 * Checks the guard options at construction, so a missing session id fails at startup rather than on a call.
 * @throws {InvalidOptionError} when neither guard is given, the monitor is not one, or `monitor` or per-conversation
 * sentinels come without `sessionId`.
 */
export function assertMcpGuardOptions({ monitor, sentinel, sessionId, judge }: McpGuardOptions<never>): void {
  if (monitor === undefined && sentinel === undefined && judge === undefined) {
    throw new InvalidOptionError({ parameter: 'monitor', value: undefined, fix: 'Pass a monitor (createMonitor), a sentinel (createSentinel), a judge (createJudge), or several.' });
  }
  if (judge !== undefined && typeof judge?.judgeScope !== 'function') throw new InvalidOptionError({ parameter: 'judge', value: judge, fix: 'Pass the result of createJudge().' });
  if (monitor !== undefined && typeof monitor.beforeTool !== 'function') throw new InvalidOptionError({ parameter: 'monitor', value: monitor, fix: 'Pass the result of createMonitor().' });
  assertSentinelOption(sentinel);
  const needsSession = monitor !== undefined || (sentinel !== undefined && isSentinelSessions(sentinel));
  if (needsSession && !(typeof sessionId === 'function' || (typeof sessionId === 'string' && sessionId !== ''))) {
    throw new InvalidOptionError({ parameter: 'sessionId', value: sessionId, fix: "The monitor and per-conversation sentinels need the session's id: pass it, or a function of the call." });
  }
}

/** What {@link createMcpGuard} gives an adapter: the decision before a call, and the report after it. */
export interface McpGuard<CONTEXT> {
  /** The call's conversation; `undefined` when the app's function failed (reported by `decide`). */
  sessionOf(params: CallToolRequestParams, context: CONTEXT): string | undefined;
  /**
   * The core's `guardJudgedToolCall`: the monitor first (fails open), then the sentinel (fails closed), then the
   * judge (its rubrics' `on_error`). `approved`: the user approved this call, so a rubric that asks is answered.
   */
  decide(params: CallToolRequestParams, context: CONTEXT, options?: { approved?: boolean; judged?: JudgedOutcome }): Promise<JudgedToolCallDecision>;
  /** Tells the sentinel what became of a call that ran: `result` undefined or `isError` is a failure, which changes nothing. */
  record(params: CallToolRequestParams, result: Record<string, unknown> | undefined, context: CONTEXT): void;
}

/** The guard of MCP tool calls, from options {@link assertMcpGuardOptions} accepted. Each failure is logged once. */
export function createMcpGuard<CONTEXT>({ monitor, sentinel, sessionId, judge, logger = console }: McpGuardOptions<CONTEXT>): McpGuard<CONTEXT> {
  let monitorWarned = false;
  const onMonitorError = (error: unknown) => {
    if (!monitorWarned) warnSafely(logger, '[panoptes] The pre-emptive check (monitor.beforeTool) failed; the call goes on unchecked by the workflow. Later failures are not logged.', error);
    monitorWarned = true;
  };
  let recordWarned = false;
  const onRecordError = (error: unknown) => {
    if (!recordWarned) warnSafely(logger, '[panoptes] Recording a tool result for the policy failed; its facts expire with their TTL instead. Later failures are not logged.', error);
    recordWarned = true;
  };
  const sessionOf = (params: CallToolRequestParams, context: CONTEXT): string | undefined => (typeof sessionId === 'function' ? sessionId(params, context) : sessionId);
  const results = judge === undefined ? undefined : createRecentResults();
  const judging = (session: string | undefined, options: { approved?: boolean; judged?: JudgedOutcome }) =>
    judge === undefined ? {} : { judge, messages: results!.of(session), approved: options.approved, judged: options.judged };
  const reported = (params: CallToolRequestParams, decision: JudgedToolCallDecision): JudgedToolCallDecision => {
    if (decision.allowed && decision.judged && decision.judged.warnings.length > 0) {
      // A policy report, not a failure: each one is logged.
      warnSafely(logger, `[panoptes] ${params.name} ran with a judge's warning: ${decision.judged.warnings.join('; ')}`);
    }
    return decision;
  };

  return {
    sessionOf(params, context) {
      try {
        return sessionOf(params, context);
      } catch {
        return undefined;
      }
    },
    async decide(params, context, options = {}) {
      // The session id may be the app's function; if it fails, the monitor is skipped (fail open) and per-conversation
      // sentinels, left without a conversation, refuse the call (fail closed).
      let session: string | undefined;
      try {
        session = sessionOf(params, context);
      } catch (error) {
        onMonitorError(error);
        return reported(params, await guardJudgedToolCall(toCoreToolCall(params), { sentinel, ...judging(undefined, options) }));
      }
      return reported(params, await guardJudgedToolCall(toCoreToolCall(params), { monitor, sentinel, sessionId: session, onMonitorError, ...judging(session, options) }));
    },
    record(params, result, context) {
      if (sentinel === undefined && results === undefined) return;
      let session: string | undefined;
      try {
        session = sessionOf(params, context);
      } catch {
        return; // already reported by decide()
      }
      if (result !== undefined) results?.add(session, params.name, result);
      if (sentinel === undefined) return;
      const outcome = result === undefined || result.isError === true ? ({ ok: false } as const) : { ok: true as const, result: safeResultData(params.name, result) };
      recordToolResult(toCoreToolCall(params), outcome, { sentinel, sessionId: session, onError: onRecordError });
    },
  };
}

/** The data of a successful result (an error result is never recorded as data). */
function safeResultData(name: string, result: Record<string, unknown>): unknown {
  try {
    return resultData(name, result);
  } catch {
    return undefined;
  }
}

/** The refusal in a decision that is not allowed, as a refused result carries it. */
export function refusalIn(name: string, decision: Extract<JudgedToolCallDecision, { allowed: false }>): McpRefusal {
  return decision.by === 'judge' ? decision.refusal : toolRefusal(name, decision);
}

/** Results the judge sees per session: the last few, as tool messages. */
const RECENT_RESULTS = 10;
/** Sessions whose recent results are kept; the oldest are forgotten past it. */
const RESULT_SESSIONS = 10_000;

/** What the judge reads on MCP, where no conversation comes with a call: the results of the session's last calls. */
function createRecentResults() {
  const sessions = new Map<string, ChatMessage[]>();
  return {
    add(session: string | undefined, name: string, result: Record<string, unknown>) {
      const key = session ?? '';
      const kept = sessions.get(key) ?? [];
      sessions.delete(key); // most recently used last
      sessions.set(key, [...kept.slice(-(RECENT_RESULTS - 1)), { role: 'tool', name, content: resultText(result), ...(result.isError === true ? { isError: true } : {}) }]);
      if (sessions.size > RESULT_SESSIONS) sessions.delete(sessions.keys().next().value!);
    },
    of: (session: string | undefined): readonly ChatMessage[] => sessions.get(session ?? '') ?? [],
  };
}
