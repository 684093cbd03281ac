/**
 * What an upstream answer's body is, told from its bytes: a JSON completion or a server-sent event stream. Its
 * content type and the request's `stream` flag are claims the upstream (or a coercing server) can get wrong, and a
 * body read by the wrong claim is a body passed on unread, tool calls and all. So the proxy sniffs.
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';
import { returnedHeaders } from './upstream.js';

/** What a body is: a JSON value, an SSE stream, nothing at all, or something else (unreadable). */
export type BodyKind = 'json' | 'sse' | 'empty' | 'other';

/**
 * Deepest nesting of arrays and objects the proxy reads in an answer, a streamed chunk or a call's arguments. The
 * OpenAI format needs under ten levels; JSON nested thousands deep parses, but overflows the stack of whatever walks
 * it next (serialising it again, cloning a session), so it is refused before anything walks it.
 */
export const MAX_NESTING = 100;

const SSE_FIELDS = ['data:', 'event:', 'id:', 'retry:', ':'];
/** Whitespace and the byte-order mark, which may precede either kind of body. */
const LEADING = /^[\uFEFF \t\r\n]+/;

/**
 * The kind of a body that starts with `start`, or `undefined` when more bytes are needed to tell: JSON starts with
 * `{` or `[`, SSE with a field name and a colon (or a `:` comment); whitespace and a BOM before either are skipped.
 * @example
 * kindOf('data: {"choices": []}') // 'sse'
 * kindOf('  {"id"') // 'json'
 * kindOf('dat') // undefined
 */
export function kindOf(start: string): Exclude<BodyKind, 'empty'> | undefined {
  const text = start.replace(LEADING, '');
  if (text === '') return undefined;
  if (text[0] === '{' || text[0] === '[') return 'json';
  if (SSE_FIELDS.some((field) => text.startsWith(field))) return 'sse';
  return SSE_FIELDS.some((field) => field.startsWith(text)) ? undefined : 'other';
}

/**
 * Reads the first pieces of `body` until its kind is known (`empty` when it ended before any content). The returned
 * body yields every piece, the ones read here first, so nothing is lost and time to first token is unchanged.
 */
export async function sniffBody(body: AsyncIterable<Uint8Array>): Promise<{ kind: BodyKind; body: AsyncIterable<Uint8Array> }> {
  const iterator = body[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  const decoder = new TextDecoder();
  let start = '';
  let kind: BodyKind | undefined;
  while (kind === undefined) {
    const next = await iterator.next();
    if (next.done) {
      kind = start === '' ? 'empty' : 'other';
      break;
    }
    head.push(next.value);
    // Kept without its leading whitespace, so a body of blank lines costs one pass, not one per piece.
    start = (start + decoder.decode(next.value, { stream: true })).replace(LEADING, '');
    kind = kindOf(start);
  }
  return {
    kind,
    body: {
      async *[Symbol.asyncIterator]() {
        yield* head;
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
      },
    },
  };
}

/** The whole of a body as UTF-8 text. */
export async function readText(body: AsyncIterable<Uint8Array>): Promise<string> {
  const pieces: Buffer[] = [];
  for await (const piece of body) pieces.push(Buffer.from(piece));
  return Buffer.concat(pieces).toString('utf8');
}

/**
 * Whether the JSON text `text` nests arrays and objects deeper than `max`, found by counting brackets outside
 * strings, without parsing (so a deep value is never built, let alone walked).
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (inString) {
      if (code === 0x5c) at++; // a backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x7b || code === 0x5b) {
      if (++depth > max) return true;
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * The headers of an answer the proxy read and sends on: the upstream's, labelled with what the body is (the
 * upstream's label may be wrong), and without `content-encoding`: the proxy asks for an uncompressed answer and reads
 * it as text, so what it sends is never compressed (a compressed one does not parse and is withheld).
 */
export function answerHeaders(headers: IncomingHttpHeaders, kind: 'json' | 'sse'): Record<string, string | string[]> {
  const { 'content-encoding': _encoding, 'content-type': _type, ...rest } = returnedHeaders(headers, { keepLength: false });
  return { ...rest, 'content-type': kind === 'json' ? 'application/json' : 'text/event-stream' };
}

/** Whether the upstream says its body is compressed (the proxy asks it not to be, and reads it as text). */
export function isEncoded(headers: IncomingHttpHeaders): boolean {
  const encoding = headers['content-encoding'];
  return encoding !== undefined && String(encoding).trim().toLowerCase() !== 'identity';
}
