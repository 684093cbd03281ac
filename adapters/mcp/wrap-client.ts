import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolRequestParams } from '@modelcontextprotocol/sdk/types.js';
import {
  assertSentinelOption,
  guardToolCall,
  InvalidOptionError,
  isSentinelSessions,
  recordToolResult,
  toolRefusal,
  type Logger,
  type Monitor,
  type SentinelSource,
  type ToolCall,
  type ToolCallDecision,
} from '../../src/index.js';
import { refusalResult, resultData, toCoreToolCall } from './translate.js';

/** What `wrapMcpClient` needs of a client: the official SDK's `Client`, or anything with its `callTool`. */
export type McpToolClient = Pick<Client, 'callTool'>;

/** Options of {@link wrapMcpClient}. Give a monitor, a sentinel, or both. */
export interface WrapMcpClientOptions {
  /** Refuses calls whose workflow state would break a critical constraint (`monitor.beforeTool`). */
  monitor?: Monitor;
  /**
   * Refuses calls the rulebase does not prove allowed (`sentinel.check`): a sentinel, or per-conversation sentinels
   * from `createSentinelSessions` (the session id picks the conversation's).
   */
  sentinel?: SentinelSource;
  /** The conversation, or a function of the call: required with `monitor` and with per-conversation sentinels. */
  sessionId?: string | ((params: CallToolRequestParams) => string);
  /** Receives the adapter's own failures, once. @default console */
  logger?: Logger;
}

/**
 * Wraps an MCP client so every `callTool` is checked before it is sent, by the core's `guardToolCall`: the monitor
 * first (workflow order), then the sentinel (the rules) as the monitor's guard, so a call the workflow refuses never
 * reaches the rules and a call the rules refuse never enters the workflow's trace. A refused call never reaches the
 * server; it returns an `isError: true` result whose
 * text tells the model why and what to do instead, with the details in `_meta["panoptes/refusal"]`. Every other
 * method and property is the client's own, so the wrapped client goes wherever the client went (tool adapters of
 * agent frameworks included).
 *
 * The monitor fails open (a monitor error leaves the sentinel, if any, to decide alone); the sentinel fails closed.
 * @throws {InvalidOptionError} at construction when neither guard is given, or `monitor` or per-conversation sentinels
 * come without `sessionId`.
 * @example
 * const client = wrapMcpClient(new Client({ name: 'agent', version: '1.0.0' }), { sentinel });
 * await client.connect(transport);
 * const result = await client.callTool({ name: 'cancel_reservation', arguments: { reservation_id: 'ABC123' } });
 * if (result.isError) console.log(result.content); // the blockers, for the model
 */
export function wrapMcpClient<CLIENT extends McpToolClient>(client: CLIENT, { monitor, sentinel, sessionId, logger = console }: WrapMcpClientOptions): CLIENT {
  if (typeof client?.callTool !== 'function') throw new InvalidOptionError({ parameter: 'client', value: client, fix: 'Pass an MCP Client from @modelcontextprotocol/sdk.' });
  if (monitor === undefined && sentinel === undefined) {
    throw new InvalidOptionError({ parameter: 'monitor', value: undefined, fix: 'Pass a monitor (createMonitor), a sentinel (createSentinel), or both.' });
  }
  if (monitor !== undefined && typeof monitor.beforeTool !== 'function') throw new InvalidOptionError({ parameter: 'monitor', value: monitor, fix: 'Pass the result of createMonitor().' });
  assertSentinelOption(sentinel);
  const needsSession = monitor !== undefined || (sentinel !== undefined && isSentinelSessions(sentinel));
  if (needsSession && !(typeof sessionId === 'function' || (typeof sessionId === 'string' && sessionId !== ''))) {
    throw new InvalidOptionError({ parameter: 'sessionId', value: sessionId, fix: "The monitor and per-conversation sentinels need the session's id: pass it, or a function of the call." });
  }
  let warned = false;

  const onMonitorError = (error: unknown) => {
    if (!warned) logger.warn('[panoptes] The pre-emptive check (monitor.beforeTool) failed; the call goes on unchecked by the workflow. Later failures are not logged.', error);
    warned = true;
  };

  async function decide(params: CallToolRequestParams, call: ToolCall): Promise<ToolCallDecision> {
    // The session id may be the app's function; if it fails, the monitor is skipped (fail open) and per-conversation
    // sentinels, left without a conversation, refuse the call (fail closed).
    let session: string | undefined;
    try {
      session = typeof sessionId === 'function' ? sessionId(params) : sessionId;
    } catch (error) {
      onMonitorError(error);
      return guardToolCall(call, { sentinel });
    }
    return guardToolCall(call, { monitor, sentinel, sessionId: session, onMonitorError });
  }

  let recordFailed = false;
  const record = (params: CallToolRequestParams, result: Record<string, unknown> | undefined) => {
    if (sentinel === undefined) return;
    let session: string | undefined;
    try {
      session = typeof sessionId === 'function' ? sessionId(params) : sessionId;
    } catch {
      return; // already reported by decide()
    }
    const outcome = result === undefined || result.isError === true ? ({ ok: false } as const) : { ok: true as const, result: safeResultData(params.name, result) };
    recordToolResult(toCoreToolCall(params), outcome, {
      sentinel,
      sessionId: session,
      onError: (error) => {
        if (!recordFailed) logger.warn('[panoptes] Recording a tool result for the policy failed; its facts expire with their TTL instead. Later failures are not logged.', error);
        recordFailed = true;
      },
    });
  };

  const callTool: McpToolClient['callTool'] = async function guardedCallTool(params, resultSchema, options) {
    const decision = await decide(params, toCoreToolCall(params));
    if (!decision.allowed) return refusalResult(toolRefusal(params.name, decision));
    let result: Awaited<ReturnType<McpToolClient['callTool']>>;
    try {
      result = await client.callTool(params, resultSchema, options);
    } catch (error) {
      record(params, undefined); // a failed call changed nothing
      throw error;
    }
    record(params, result as Record<string, unknown>);
    return result;
  };

  // A proxy rather than a copy: the SDK's Client keeps state on itself (capabilities, validators), so every other
  // member must run against the original.
  return new Proxy(client, {
    get(target, property) {
      if (property === 'callTool') return callTool;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The data of a successful result (an error result is never recorded as data). */
function safeResultData(name: string, result: Record<string, unknown>): unknown {
  try {
    return resultData(name, result);
  } catch {
    return undefined;
  }
}
