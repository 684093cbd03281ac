import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolRequestParams } from '@modelcontextprotocol/sdk/types.js';
import { InvalidOptionError, type Logger, type Monitor, type Sentinel } from '../../src/index.js';
import { refusalResult, toCoreToolCall, type McpRefusal } from './translate.js';

/** What `wrapMcpClient` needs of a client: the official SDK's `Client`, or anything with its `callTool`. */
export type McpToolClient = Pick<Client, 'callTool'>;

/** Options of {@link wrapMcpClient}. Give a monitor, a sentinel, or both. */
export interface WrapMcpClientOptions {
  /** Refuses calls whose workflow state would break a critical constraint (`monitor.beforeTool`). */
  monitor?: Monitor;
  /** Refuses calls the rulebase does not prove allowed (`sentinel.check`). */
  sentinel?: Sentinel;
  /** The monitor's session, or a function of the call: required with `monitor`. */
  sessionId?: string | ((params: CallToolRequestParams) => string);
  /** Receives the adapter's own failures, once. @default console */
  logger?: Logger;
}

/**
 * Wraps an MCP client so every `callTool` is checked before it is sent: by the monitor (workflow order), then by
 * the sentinel (the rules). A refused call never reaches the server; it returns an `isError: true` result whose
 * text tells the model why and what to do instead, with the details in `_meta["panoptes/refusal"]`. Every other
 * method and property is the client's own, so the wrapped client goes wherever the client went (tool adapters of
 * agent frameworks included).
 *
 * The monitor fails open (a monitor error lets the call through); the sentinel fails closed.
 * @throws {InvalidOptionError} at construction when neither guard is given, or `monitor` comes without `sessionId`.
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
  if (sentinel !== undefined && typeof sentinel.check !== 'function') throw new InvalidOptionError({ parameter: 'sentinel', value: sentinel, fix: 'Pass the result of createSentinel().' });
  if (monitor !== undefined && !(typeof sessionId === 'function' || (typeof sessionId === 'string' && sessionId !== ''))) {
    throw new InvalidOptionError({ parameter: 'sessionId', value: sessionId, fix: "The monitor needs the session's id: pass it, or a function of the call." });
  }
  let warned = false;

  async function refusalFor(params: CallToolRequestParams): Promise<McpRefusal | undefined> {
    if (monitor !== undefined) {
      try {
        const decision = await monitor.beforeTool(typeof sessionId === 'function' ? sessionId(params) : sessionId!, toCoreToolCall(params));
        if (decision.action === 'deny') return { by: 'monitor', tool: params.name, reason: decision.reason, constraints: decision.constraints };
      } catch (error) {
        if (!warned) logger.warn('[panoptes] The pre-emptive check (monitor.beforeTool) failed; the call goes on unchanged. Later failures are not logged.', error);
        warned = true;
      }
    }
    if (sentinel !== undefined) {
      const result = await sentinel.check(params.name, params.arguments ?? {});
      if (!result.allowed) return { by: 'sentinel', tool: params.name, reason: result.text, status: result.status, blockers: result.blockers };
    }
    return undefined;
  }

  const callTool: McpToolClient['callTool'] = async function guardedCallTool(params, resultSchema, options) {
    const refusal = await refusalFor(params);
    return refusal === undefined ? client.callTool(params, resultSchema, options) : refusalResult(refusal);
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
