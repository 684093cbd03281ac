/**
 * MCP types <-> core types: the only file of the MCP adapter that knows both.
 * @module
 */
import type { CallToolRequestParams, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JudgedToolRefusal, ToolCall, ToolRefusal } from '../../src/index.js';

/** Why a guarded call did not reach the server, as `wrapMcpClient` reports it in the result's `_meta`: the monitor's, the sentinel's or the judge's refusal. */
export type McpRefusal = ToolRefusal | JudgedToolRefusal;

/** The `_meta` key under which a refused result carries its {@link McpRefusal}. */
export const REFUSAL_META_KEY = 'panoptes/refusal';

/**
 * A `tools/call` request as a core tool call (MCP calls carry no id; the monitor matches them by name).
 * @example
 * toCoreToolCall({ name: 'issue_refund', arguments: { booking_id: 'B1' } }) // { name: 'issue_refund', args: { booking_id: 'B1' } }
 */
export function toCoreToolCall(params: CallToolRequestParams): ToolCall {
  return { name: params.name, args: params.arguments ?? {} };
}

/**
 * A refusal as an MCP tool result: `isError: true` with the reason as text, which is how MCP tells the model a
 * call failed so it can choose again (a protocol error would tell it nothing).
 * @example
 * refusalResult({ by: 'monitor', tool: 'issue_refund', reason: 'Verify first.' }).isError // true
 */
export function refusalResult(refusal: McpRefusal): CallToolResult {
  return { content: [{ type: 'text', text: refusal.reason }], isError: true, _meta: { [REFUSAL_META_KEY]: refusal } };
}

/**
 * The refusal a result carries, if `wrapMcpClient` refused the call.
 * @example
 * const result = await client.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } });
 * const refusal = refusalOf(result); // { by: 'sentinel', reason, blockers } or undefined
 */
export function refusalOf(result: Record<string, unknown>): McpRefusal | undefined {
  const meta = result._meta;
  const refusal = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)[REFUSAL_META_KEY] : undefined;
  return typeof refusal === 'object' && refusal !== null && typeof (refusal as McpRefusal).reason === 'string' ? (refusal as McpRefusal) : undefined;
}

/**
 * The data in a tool result, for the sentinel's JSON paths: `structuredContent` when the server sends it, else the
 * text content parsed as JSON, else the text itself.
 * @throws {Error} carrying the server's text when the result is an error, so the proof is blocked with that reason.
 * @example
 * resultData('get_booking', { content: [{ type: 'text', text: '{"status":"active"}' }] }) // { status: 'active' }
 */
export function resultData(toolName: string, result: Record<string, unknown>): unknown {
  const text = resultText(result);
  // The server's own failure, passed on as the tool's error (not a Panoptes error); the sentinel turns it into a
  // fetch-failed blocker with this message.
  if (result.isError === true) throw new Error(`${toolName} failed: ${text || 'the server gave no reason'}`);
  if (result.structuredContent !== undefined) return result.structuredContent;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The text of a tool result: its text items, one per line (images and resources left out).
 * @example
 * resultText({ content: [{ type: 'text', text: 'Booked.' }] }) // 'Booked.'
 */
export function resultText(result: Record<string, unknown>): string {
  return Array.isArray(result.content) ? result.content.flatMap((item: { type?: unknown; text?: unknown }) => (item?.type === 'text' && typeof item.text === 'string' ? [item.text] : [])).join('\n') : '';
}
