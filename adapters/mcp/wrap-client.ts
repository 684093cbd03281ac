import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolRequestParams } from '@modelcontextprotocol/sdk/types.js';
import { InvalidOptionError, type Judge, type Logger, type Monitor, type SentinelSource } from '../../src/index.js';
import { assertMcpGuardOptions, createMcpGuard, refusalIn } from './guard.js';
import { refusalResult } from './translate.js';

/** What `wrapMcpClient` needs of a client: the official SDK's `Client`, or anything with its `callTool`. */
export type McpToolClient = Pick<Client, 'callTool'>;

/** Options of {@link wrapMcpClient}. Give a monitor, a sentinel, a judge, or several. */
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
  /**
   * Judges each call the guards allow with the judge's `tool_call` rubrics before it is sent. MCP carries no
   * conversation: the judge reads the call and the results of this session's last calls through the wrapper. A client
   * cannot ask its own user through MCP, so a rubric that asks refuses the call with the question, for the model to
   * put to the user; one that refuses refuses it; one that warns lets it run and logs the warning.
   */
  judge?: Judge;
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
export function wrapMcpClient<CLIENT extends McpToolClient>(client: CLIENT, options: WrapMcpClientOptions): CLIENT {
  if (typeof client?.callTool !== 'function') throw new InvalidOptionError({ parameter: 'client', value: client, fix: 'Pass an MCP Client from @modelcontextprotocol/sdk.' });
  assertMcpGuardOptions(options);
  const guard = createMcpGuard<void>(options);

  const callTool: McpToolClient['callTool'] = async function guardedCallTool(params, resultSchema, options) {
    const decision = await guard.decide(params);
    if (!decision.allowed) return refusalResult(refusalIn(params.name, decision));
    let result: Awaited<ReturnType<McpToolClient['callTool']>>;
    try {
      result = await client.callTool(params, resultSchema, options);
    } catch (error) {
      guard.record(params, undefined); // a failed call changed nothing
      throw error;
    }
    guard.record(params, result as Record<string, unknown>);
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
