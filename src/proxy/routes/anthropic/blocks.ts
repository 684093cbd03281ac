/**
 * The content blocks of an Anthropic Messages answer, as the proxy reads them: `tool_use` is a call the client runs;
 * text, thinking and the tools Anthropic runs itself carry none; a block of a type the proxy does not know is a call it
 * cannot read. And the events a block is streamed as.
 * @module
 */
import type { AssistantTurn } from '../../../messages/index.js';
import { record, type FoundCall } from '../../answer-calls.js';
import { refusalText, type RefusedToolCall } from '../../enforce.js';
import { anthropicMessages } from './request.js';

/** A call found in a content block, with the block's position, to write it again. */
export interface BlockCall extends FoundCall {
  blockIndex: number;
}

/**
 * Blocks that carry no call the client runs: text and thinking, and the tools Anthropic runs itself (their results are
 * in the answer already; withholding them stops nothing). Results (`*_tool_result`) are results, not calls.
 */
const NOT_CALLS = new Set(['text', 'thinking', 'redacted_thinking', 'server_tool_use', 'mcp_tool_use', 'container_upload']);

/** The call a block carries, or `undefined` for a block that carries none. */
export function callOfBlock(value: unknown, blockIndex: number, input?: string): BlockCall | undefined {
  const block = record(value);
  if (!block) return { choice: 0, name: undefined, arguments: undefined, blockIndex, unreadable: 'a content block that is not an object could not be read' };
  const type = block.type;
  if (typeof type === 'string' && (NOT_CALLS.has(type) || type.endsWith('_result'))) return undefined;
  const id = typeof block.id === 'string' ? { id: block.id } : {};
  if (type !== 'tool_use') return { choice: 0, ...id, name: type, arguments: undefined, blockIndex, unreadable: `it is a content block of type '${String(type)}', which the proxy cannot check` };
  // Arguments as JSON text, as the chat route reads them (so the same checks apply); streamed, the text as it came.
  if (input === undefined && block.input !== undefined && !record(block.input)) return { choice: 0, ...id, name: block.name, arguments: undefined, blockIndex, unreadable: 'its input is not a JSON object' };
  return { choice: 0, ...id, name: block.name, arguments: input ?? (block.input === undefined ? '' : JSON.stringify(block.input)), blockIndex };
}

/** The text block that takes a refused call's place, at the same index: the refusal's text. */
export function refusalBlock(refusal: RefusedToolCall): Record<string, unknown> {
  return { type: 'text', text: refusalText([refusal]) };
}

/**
 * The content with each refused call's block replaced by its refusal, and a `stop_reason` of `tool_use` made `end_turn`
 * when no call is left.
 */
export function decidedMessage(message: Record<string, unknown>, content: readonly unknown[], calls: readonly BlockCall[], refused: ReadonlyMap<FoundCall, RefusedToolCall>): Record<string, unknown> {
  const blocks = [...content];
  for (const call of calls) {
    const refusal = refused.get(call);
    if (refusal && call.blockIndex < blocks.length) blocks[call.blockIndex] = refusalBlock(refusal);
  }
  const callsLeft = blocks.some((block) => record(block)?.type === 'tool_use');
  return { ...message, content: blocks, ...(!callsLeft && message.stop_reason === 'tool_use' ? { stop_reason: 'end_turn' } : {}) };
}

/** The answer's content as one assistant turn, read as the client sends it back next turn. */
export function contentTurn(content: readonly unknown[]): AssistantTurn {
  const [message] = anthropicMessages({ role: 'assistant', content });
  return { content: message!.content, toolCalls: message!.role === 'assistant' ? (message!.toolCalls ?? []) : [] };
}

/** One server-sent event as Anthropic names it: by its `type`, which clients dispatch on (never the upstream's name). */
export function anthropicEvent(data: Record<string, unknown>): string {
  return `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The events of one complete block at `index`: started empty, its text or input as one delta, stopped. The client's
 * accumulated block is exactly `block`.
 */
export function blockEvents(block: Record<string, unknown>, index: number): string {
  const event = (type: string, fields: Record<string, unknown>) => anthropicEvent({ type, index, ...fields });
  const delta = (fields: Record<string, unknown>) => event('content_block_delta', { delta: fields });
  let out = '';
  switch (block.type) {
    case 'text': {
      const text = typeof block.text === 'string' ? block.text : '';
      out += event('content_block_start', { content_block: { ...block, text: '' } });
      if (text !== '') out += delta({ type: 'text_delta', text });
      break;
    }
    case 'tool_use':
      out += event('content_block_start', { content_block: { ...block, input: {} } });
      out += delta({ type: 'input_json_delta', partial_json: JSON.stringify(block.input ?? {}) });
      break;
    case 'thinking': {
      out += event('content_block_start', { content_block: { ...block, thinking: '', signature: '' } });
      if (typeof block.thinking === 'string' && block.thinking !== '') out += delta({ type: 'thinking_delta', thinking: block.thinking });
      if (typeof block.signature === 'string' && block.signature !== '') out += delta({ type: 'signature_delta', signature: block.signature });
      break;
    }
    default:
      out += event('content_block_start', { content_block: block });
  }
  return out + event('content_block_stop', {});
}

/**
 * A checked message as the events of a stream, for a client that asked for one when the upstream answered with JSON:
 * `message_start` (no content yet), each block, `message_delta` with the stop reason and usage, `message_stop`. A body
 * that is no message (an error object) goes as an `error` event, which Anthropic clients raise.
 */
export function messageEvents(message: Record<string, unknown>): string {
  if (!Array.isArray(message.content)) return anthropicEvent({ type: 'error', ...(record(message.error) ? { error: message.error } : { error: { type: 'api_error', message: 'The upstream answered with no message.' } }) });
  const { content, stop_reason: stopReason, stop_sequence: stopSequence, usage, ...rest } = message;
  const outputTokens = record(usage)?.output_tokens;
  let out = anthropicEvent({ type: 'message_start', message: { ...rest, content: [], stop_reason: null, stop_sequence: null, ...(usage === undefined ? {} : { usage }) } });
  content.forEach((block: unknown, index: number) => (out += blockEvents(record(block) ?? {}, index)));
  out += anthropicEvent({ type: 'message_delta', delta: { stop_reason: stopReason ?? 'end_turn', stop_sequence: stopSequence ?? null }, usage: { output_tokens: typeof outputTokens === 'number' ? outputTokens : 0 } });
  return out + anthropicEvent({ type: 'message_stop' });
}
