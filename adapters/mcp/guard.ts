/**
 * The checks around one MCP tool call, shared by `wrapMcpClient` (the calls a client sends) and
 * `createGuardedMcpServer` (the calls a server receives): the decision before the call, and the report of its
 * outcome to the sentinel after.
 * @module
 */
import type { CallToolRequestParams } from '@modelcontextprotocol/sdk/types.js';
import {
  assertSentinelOption,
  guardToolCall,
  InvalidOptionError,
  isSentinelSessions,
  recordToolResult,
  warnSafely,
  type Logger,
  type Monitor,
  type SentinelSource,
  type ToolCallDecision,
} from '../../src/index.js';
import { resultData, toCoreToolCall } from './translate.js';

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
}

/**
 * Checks the guard options at construction, so a missing session id fails at startup rather than on a call.
 * @throws {InvalidOptionError} when neither guard is given, the monitor is not one, or `monitor` or per-conversation
 * sentinels come without `sessionId`.
 */
export function assertMcpGuardOptions({ monitor, sentinel, sessionId }: McpGuardOptions<never>): void {
  if (monitor === undefined && sentinel === undefined) {
    throw new InvalidOptionError({ parameter: 'monitor', value: undefined, fix: 'Pass a monitor (createMonitor), a sentinel (createSentinel), or both.' });
  }
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
  /** The core's `guardToolCall`: the monitor first (fails open), then the sentinel (fails closed). */
  decide(params: CallToolRequestParams, context: CONTEXT): Promise<ToolCallDecision>;
  /** Tells the sentinel what became of a call that ran: `result` undefined or `isError` is a failure, which changes nothing. */
  record(params: CallToolRequestParams, result: Record<string, unknown> | undefined, context: CONTEXT): void;
}

/** The guard of MCP tool calls, from options {@link assertMcpGuardOptions} accepted. Each failure is logged once. */
export function createMcpGuard<CONTEXT>({ monitor, sentinel, sessionId, logger = console }: McpGuardOptions<CONTEXT>): McpGuard<CONTEXT> {
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

  return {
    sessionOf(params, context) {
      try {
        return sessionOf(params, context);
      } catch {
        return undefined;
      }
    },
    async decide(params, context) {
      // The session id may be the app's function; if it fails, the monitor is skipped (fail open) and per-conversation
      // sentinels, left without a conversation, refuse the call (fail closed).
      let session: string | undefined;
      try {
        session = sessionOf(params, context);
      } catch (error) {
        onMonitorError(error);
        return guardToolCall(toCoreToolCall(params), { sentinel });
      }
      return guardToolCall(toCoreToolCall(params), { monitor, sentinel, sessionId: session, onMonitorError });
    },
    record(params, result, context) {
      if (sentinel === undefined) return;
      let session: string | undefined;
      try {
        session = sessionOf(params, context);
      } catch {
        return; // already reported by decide()
      }
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
