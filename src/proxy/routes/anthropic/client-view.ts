/**
 * What a client has built of a streamed Anthropic message from the events it received, and the events that end that
 * message well-formed when the proxy stops it early (its text matched a state the monitor withholds it for, or, held
 * whole, it was withheld): the open text block ended with the replacement, every open block stopped, `message_delta`
 * with a stop reason, `message_stop`. The official SDK's `MessageStream` accumulates events this way: blocks by the
 * order they start, deltas by `index`.
 * @module
 */
import type { AssistantTurn } from '../../../messages/index.js';
import { record } from '../../answer-calls.js';
import { anthropicEvent, blockEvents, contentTurn } from './blocks.js';

/** One content block as the client has it: its type, its text so far (a text block), whether it stopped. */
interface SentBlock {
  type: unknown;
  text: string;
  stopped: boolean;
}

/** The client's view of one streamed message, from the events the proxy sent it (`note` each one). */
export class ClientMessage {
  /** Whether the client got the message's `message_start`. */
  #started = false;
  readonly #blocks = new Map<number, SentBlock>();

  /** Notes one event the client was sent. */
  note(event: Record<string, unknown>): void {
    if (event.type === 'message_start') this.#started = true;
    const index = event.index;
    if (typeof index !== 'number') return;
    if (event.type === 'content_block_start') {
      const block = record(event.content_block) ?? {};
      this.#blocks.set(index, { type: block.type, text: typeof block.text === 'string' ? block.text : '', stopped: false });
      return;
    }
    const block = this.#blocks.get(index);
    const delta = record(event.delta);
    if (event.type === 'content_block_delta' && block && delta?.type === 'text_delta' && typeof delta.text === 'string') block.text += delta.text;
    else if (event.type === 'content_block_stop' && block) block.stopped = true;
  }

  /**
   * The events that end the message. The text block at `place`, when the client has it open, ends with `text` after
   * what it got (separated by a blank line); else `text` goes as a text block of its own after the others. Without
   * `text` the message ends as it is. `message` is the message as the upstream began it (its id, model, usage).
   */
  ending(message: Record<string, unknown>, place: number | undefined, text: string | undefined): string {
    let events = this.#started ? '' : anthropicEvent({ type: 'message_start', message: { ...message, content: [], stop_reason: null, stop_sequence: null } });
    let replaced = text === undefined;
    for (const [index, block] of [...this.#blocks].sort(([a], [b]) => a - b)) {
      if (block.stopped) continue;
      if (!replaced && index === place && block.type === 'text') {
        events += anthropicEvent({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: separated(block.text, text!) } });
        replaced = true;
      }
      events += anthropicEvent({ type: 'content_block_stop', index });
    }
    if (!replaced) events += blockEvents({ type: 'text', text }, this.#blocks.size);
    const outputTokens = record(message.usage)?.output_tokens;
    events += anthropicEvent({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: typeof outputTokens === 'number' ? outputTokens : 0 } });
    return events + anthropicEvent({ type: 'message_stop' });
  }

  /** The text of the message as the client has it once {@link ending} ended it with `text`, as one assistant turn. */
  delivered(place: number | undefined, text: string | undefined): AssistantTurn {
    const blocks = [...this.#blocks].sort(([a], [b]) => a - b).filter(([, block]) => block.type === 'text');
    const content = blocks.map(([index, block]) => ({ type: 'text', text: text !== undefined && index === place && !block.stopped ? block.text + separated(block.text, text) : block.text }));
    const replaced = text === undefined || blocks.some(([index, block]) => index === place && !block.stopped);
    return contentTurn(replaced ? content : [...content, { type: 'text', text }]);
  }
}

/** `text` as it goes after `shown`: after a blank line, unless nothing was shown. */
function separated(shown: string, text: string): string {
  return shown === '' ? text : `\n\n${text}`;
}
