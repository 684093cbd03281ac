/**
 * What a client has built of a streamed Responses API answer from the events it received, and the events that end
 * that answer well-formed when the proxy stops it early (its text matched a state the monitor withholds it for, or,
 * held whole, it was withheld): the open message closed with the replacement text, then `response.completed` with
 * the output the client has. The `openai` package's `ResponseStream` accumulates events this way.
 * @module
 */
import { record } from '../../answer-calls.js';
import type { ResponseEventWriter } from './events.js';
import { withheldItem } from './items.js';

/** Events that carry the response before its output. */
export const LIFECYCLE = new Set(['response.created', 'response.in_progress', 'response.queued']);

/** One content part as the client has it: as added, its text so far, and as done. */
interface SentPart {
  part: Record<string, unknown>;
  text: string;
  done?: Record<string, unknown>;
}

/** One output item as the client has it. */
interface SentItem {
  added: Record<string, unknown>;
  done?: Record<string, unknown>;
  parts: Map<number, SentPart>;
}

/** Where the text that matched went: its output item and content part. */
export interface TextPlace {
  outputIndex: number;
  contentIndex: number;
}

/** The client's view of one streamed response, from the events the proxy sent it (`note` each one). */
export class ClientResponse {
  /** Whether the client got the response's creation (its `response.created`). */
  #started = false;
  readonly #items = new Map<number, SentItem>();

  /** Notes one event the client was sent. */
  note(event: Record<string, unknown>): void {
    const type = String(event.type);
    if (LIFECYCLE.has(type)) this.#started = true;
    const index = event.output_index;
    if (typeof index !== 'number') return;
    if (type === 'response.output_item.added') {
      this.#items.set(index, { added: record(event.item) ?? {}, parts: new Map() });
      return;
    }
    const item = this.#items.get(index);
    if (!item) return;
    const contentIndex = typeof event.content_index === 'number' ? event.content_index : -1;
    const part = item.parts.get(contentIndex);
    if (type === 'response.output_item.done') item.done = record(event.item);
    else if (type === 'response.content_part.added') item.parts.set(contentIndex, { part: record(event.part) ?? {}, text: '' });
    else if (type === 'response.output_text.delta' && part && typeof event.delta === 'string') part.text += event.delta;
    else if (type === 'response.content_part.done' && part) part.done = record(event.part);
  }

  /**
   * The events that end the stream, written by `writer`, and the output the client then has. The message the text
   * at `place` went into, when the client has it open, is closed with `text` after what it got (separated by a blank
   * line); else `text` goes as a message item of its own after the others. Without `text` the message ends as it is.
   * `response` is the response as the upstream began it (its id, model, ...); the end says it completed.
   */
  ending(writer: ResponseEventWriter, response: Record<string, unknown>, place: TextPlace | undefined, text: string | undefined): { events: string; output: unknown[] } {
    let events = this.#started ? '' : writer.event({ type: 'response.created', response: { ...response, status: 'in_progress', output: [] } });
    const output: unknown[] = [];
    let replaced = text === undefined;
    for (const [index, item] of [...this.#items].sort(([a], [b]) => a - b)) {
      if (item.done) {
        output.push(item.done);
        continue;
      }
      const closing = index === place?.outputIndex && item.added.type === 'message';
      let done: Record<string, unknown>;
      if (closing) {
        const closed = closeMessage(writer, item, index, place.contentIndex, text);
        events += closed.events;
        done = closed.item;
        replaced = true;
      } else {
        // Another item left open (OpenAI streams one at a time): it ends as the client has it.
        done = { ...item.added, status: 'incomplete' };
      }
      events += writer.event({ type: 'response.output_item.done', output_index: index, item: done });
      output.push(done);
    }
    if (!replaced) {
      const item = withheldItem(text!);
      events += writer.item(item, output.length);
      output.push(item);
    }
    events += writer.event({ type: 'response.completed', response: { ...response, status: 'completed', output } });
    return { events, output };
  }
}

/** The events that close the open message `item` at `index`, its part at `contentIndex` ended with `text`; and the item as done. */
function closeMessage(writer: ResponseEventWriter, item: SentItem, index: number, contentIndex: number, text: string | undefined): { events: string; item: Record<string, unknown> } {
  const at = { item_id: typeof item.added.id === 'string' ? item.added.id : '', output_index: index, content_index: contentIndex };
  const parts = new Map(item.parts);
  let events = '';
  let part = parts.get(contentIndex);
  if (!part && text !== undefined) {
    part = { part: { type: 'output_text', text: '', annotations: [] }, text: '' };
    events += writer.event({ type: 'response.content_part.added', ...at, part: part.part });
  }
  if (part && !part.done && part.part.type === 'output_text') {
    const added = text === undefined ? '' : `${part.text === '' ? '' : '\n\n'}${text}`;
    if (added !== '') events += writer.event({ type: 'response.output_text.delta', ...at, delta: added, logprobs: [] });
    const whole = part.text + added;
    const done = { ...part.part, text: whole, annotations: Array.isArray(part.part.annotations) ? part.part.annotations : [] };
    events += writer.event({ type: 'response.output_text.done', ...at, text: whole, logprobs: [] });
    events += writer.event({ type: 'response.content_part.done', ...at, part: done });
    parts.set(contentIndex, { ...part, text: whole, done });
  }
  const content = [...parts].sort(([a], [b]) => a - b).map(([, sent]) => sent.done ?? (sent.part.type === 'output_text' ? { ...sent.part, text: sent.text } : sent.part));
  return { events, item: { ...item.added, status: 'completed', content } };
}
