/**
 * What the middleware decides about a response while it streams past, as two pure functions: where each chunk goes
 * ({@link routeOf}) and what the response said once it has ended ({@link streamedContent}). The stream wrapper only
 * calls them (STYLE.md: no parser logic inside a stream), and tests drive them chunk by chunk.
 *
 * A chunk costs a route and nothing else: the text is put together once, at the end, from the chunks kept. An
 * earlier step function returned a new state per chunk, and that showed in the `streamText` overhead
 * (bench/adapters-ai-sdk.ts).
 * @module
 */
import type { ResponseContent, StreamPart } from './host-types.js';

/**
 * Where one chunk goes: `pass` on at once; `hold` until the model's output ends; `release` (the `finish` chunk):
 * classify the response, pass on what is held, then this chunk.
 */
export type ChunkRoute = 'pass' | 'hold' | 'release';

/**
 * Where a chunk goes. Every chunk is passed on at once, except the tool calls the host executes itself: those wait
 * for the `finish` chunk, and the response is classified just before they are released. The pre-emptive check in
 * `guardTools` must find the response classified, or the monitor would later record a refused call as one that ran.
 * Current `ai` releases start tools only after `finish` anyway; holding keeps the order on hosts that start a tool as
 * soon as its call arrives. Tool calls end a response, so text is never delayed. A provider-executed call is passed
 * on at once: its result may follow in this same stream, and must not be reordered before it.
 * @example
 * routeOf({ type: 'text-delta', id: 't', delta: 'Hello' }) // 'pass'
 * routeOf({ type: 'tool-call', toolCallId: 'c1', toolName: 'issue_refund', input: '{}' }) // 'hold'
 */
export function routeOf(part: StreamPart): ChunkRoute {
  if (part.type === 'finish') return 'release';
  if (part.type === 'tool-call' && part.providerExecuted !== true) return 'hold';
  return 'pass';
}

/**
 * Where a chunk goes while text is held (`textPolicy: 'hold'`): everything the response says waits for its
 * classification; only what says nothing (the stream's start, response metadata, raw provider chunks, errors)
 * passes at once, and `finish` releases as it does when nothing is held.
 * @example
 * holdRouteOf({ type: 'text-delta', id: 't', delta: 'Hello' }) // 'hold'
 */
export function holdRouteOf(part: StreamPart): ChunkRoute {
  switch (part.type) {
    case 'finish':
      return 'release';
    case 'stream-start':
    case 'response-metadata':
    case 'raw':
    case 'error':
      return 'pass';
    default:
      return 'hold';
  }
}

/** The UTF-8 size of the text a chunk carries (a text, reasoning or tool-input delta), for the hold's byte bound. */
export function heldBytesOf(part: StreamPart): number {
  if (part.type !== 'text-delta' && part.type !== 'reasoning-delta' && part.type !== 'tool-input-delta') return 0;
  const text = part.delta;
  let bytes = text.length;
  // Counted without an encoder (not every runtime has Buffer): each code unit is one byte, plus one or two more.
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0x80) bytes += code >= 0x800 && (code < 0xd800 || code > 0xdfff) ? 2 : 1;
  }
  return bytes;
}

/**
 * The streamed response as response content, ready for translation: its reasoning and its text (separate blocks
 * joined by a newline), then every tool call, in order. Reads only text, reasoning and tool-call chunks.
 * @example
 * streamedContent([{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'Hi' }]) // [{ type: 'text', text: 'Hi' }]
 */
export function streamedContent(parts: readonly StreamPart[]): ResponseContent[] {
  let text: string | undefined; // undefined until a text block starts, so the first one gets no separator
  let reasoning: string | undefined;
  const toolCalls: ResponseContent[] = [];
  for (const part of parts) {
    if (part.type === 'text-start') text = text === undefined ? '' : `${text}\n`;
    else if (part.type === 'text-delta') text = (text ?? '') + part.delta;
    else if (part.type === 'reasoning-start') reasoning = reasoning === undefined ? '' : `${reasoning}\n`;
    else if (part.type === 'reasoning-delta') reasoning = (reasoning ?? '') + part.delta;
    else if (part.type === 'tool-call') toolCalls.push(part);
  }
  const content: ResponseContent[] = [];
  if (reasoning) content.push({ type: 'reasoning', text: reasoning });
  if (text) content.push({ type: 'text', text });
  return content.concat(toolCalls);
}
