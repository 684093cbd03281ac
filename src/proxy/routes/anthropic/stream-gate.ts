/**
 * What the proxy does with each event of a streamed Anthropic Messages answer, without I/O. Events are read by their
 * data's `type` and written again under that name (a client that dispatches on the SSE event name and one that reads
 * the data then see the same event). Text and thinking go to the client at once, until the first block that can carry
 * a call (`tool_use`, or a type the proxy does not know): from there on everything waits, in order, for the end of the
 * message and the checks, since clients place a block's deltas by its position. Each `tool_use` block is put together
 * from its start and its `input_json_delta` pieces; then it goes out whole as checked, or, refused, a text block saying
 * why takes its place at the same index, and a `stop_reason` of `tool_use` with no call left becomes `end_turn`.
 *
 * With the monitor's text watch, text deltas are watched as they pass (text_policy `stream`): the delta that completes
 * a match never goes out, no more upstream events are read, and the message ends well-formed (see client-view.ts).
 * With `hold`, nothing goes out until the answer is classified, within the bounds (text-hold.ts).
 * @module
 */
import { parseTypedEvent as parseEvent } from '../typed-event.js';
import type { AssistantTurn } from '../../../messages/index.js';
import { record, type FoundCall } from '../../answer-calls.js';
import type { StreamEnd } from '../../stream-gate.js';
import { argumentsOf } from '../../translate.js';
import { TypedEventGate } from '../typed-event-gate.js';
import type { AnswerGate, Refusals } from '../route.js';
import { anthropicEvent, blockEvents, callOfBlock, contentTurn, refusalBlock, type BlockCall } from './blocks.js';
import { ClientMessage } from './client-view.js';

/** Most answer text kept for classification (the classifier reads the first 8k characters). */
const MAX_TEXT_CHARS = 65_536;
/** Deltas that carry text or thinking, never a call. */
const TEXT_DELTAS = new Set(['text_delta', 'thinking_delta', 'signature_delta', 'citations_delta']);

/** What the stream said of one content block: its start, and what its deltas added. */
interface StreamedBlock {
  start: Record<string, unknown>;
  json: string;
  text: string;
  /** Set when a piece of it had the wrong shape. */
  broken?: string;
}

/** Reads one streamed Messages answer; see the module's description. */
export class MessagesStreamGate extends TypedEventGate implements AnswerGate {
  malformed = 0;
  readonly loop = undefined;
  readonly id = undefined;
  readonly #blocks = new Map<number, StreamedBlock>();
  #stopped = false;
  #text = '';
  #calls: BlockCall[] | undefined;
  /** What the client has of the message, for a stream that ends early. */
  readonly #client = new ClientMessage();
  /** The message as the upstream began it (`message_start`), without content. */
  #begun: Record<string, unknown> = { type: 'message', role: 'assistant', content: [] };
  /** The index of the block whose text cut the answer. */
  #cutAt: number | undefined;

  push(data: string): string | undefined {
    if (this.done) return undefined;
    const event = parseEvent(data);
    if (!event) {
      this.malformed++;
      return undefined;
    }
    switch (event.type) {
      case 'message_start': {
        const message = record(event.message);
        if (!message) break;
        this.#begun = { ...message, content: [] };
        const content = Array.isArray(message.content) ? message.content : [];
        if (content.length === 0 && (message.content == null || Array.isArray(message.content))) return this.pass(event);
        // Blocks given whole with the start (not how Anthropic streams): each goes as a block of its own after it.
        let out = this.pass({ ...event, message: { ...message, content: [] } }) ?? '';
        content.forEach((block, index) => {
          if (this.textCut) return;
          out += this.#start({ type: 'content_block_start', index, content_block: block }) ?? '';
          if (!this.textCut) out += this.pass({ type: 'content_block_stop', index }) ?? '';
        });
        return out === '' ? undefined : out;
      }
      case 'content_block_start':
        return this.#start(event);
      case 'content_block_delta': {
        const block = typeof event.index === 'number' ? this.#blocks.get(event.index) : undefined;
        const delta = record(event.delta);
        if (!block || !delta) break; // a delta for no block started cannot be placed
        if (delta.type === 'input_json_delta') {
          if (typeof delta.partial_json === 'string') block.json += delta.partial_json;
          else block.broken = 'a piece of its input was not text';
        } else if (delta.type === 'text_delta' && typeof delta.text === 'string') {
          block.text += delta.text;
          if (block.start.type === 'text' && this.#watchText(delta.text)) {
            this.#cutAt = event.index as number;
            return undefined;
          }
        }
        if (!TEXT_DELTAS.has(String(delta.type))) this.holdingForCalls = true;
        return this.pass(event);
      }
      case 'content_block_stop':
        return this.pass(event);
      case 'message_delta':
        // The stop reason says whether calls are left: it waits for them, and so does everything after it.
        this.holdingForCalls = true;
        return this.pass(event);
      case 'message_stop':
        this.holdingForCalls = true;
        this.#stopped = true;
        this.done = true;
        return this.pass(event);
      case 'ping':
        return this.holdingForCalls ? undefined : this.write(this.hold.pass(event));
      case 'error':
        return this.pass(event);
    }
    this.malformed++;
    return undefined;
  }

  /** A block's start: noted, and from a block that can carry a call on, everything waits. */
  #start(event: Record<string, unknown>): string | undefined {
    const index = event.index;
    const start = record(event.content_block);
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index > 4096 || !start) {
      this.malformed++;
      return undefined;
    }
    const again = this.#blocks.has(index);
    this.#blocks.set(index, { start, json: '', text: typeof start.text === 'string' ? start.text : '', ...(again ? { broken: 'two blocks started at its index' } : {}) });
    // Text given with the start that completes a match: the block never goes out (the end adds one of its own).
    if (start.type === 'text' && typeof start.text === 'string' && this.#watchText(start.text)) return undefined;
    if (again || callOfBlock(start, index) !== undefined) this.holdingForCalls = true;
    return this.pass(event);
  }

  /** Keeps text of a text block for classification and watches it; true when it completed a match (the answer ends). */
  #watchText(text: string): boolean {
    if (this.#text.length < MAX_TEXT_CHARS) this.#text += text;
    if (!this.hold.see(text)) return false;
    this.done = true;
    return true;
  }

  protected sent(event: Record<string, unknown>): void {
    this.#client.note(event);
  }

  protected eventText(event: Record<string, unknown>): string {
    return anthropicEvent(event);
  }

  get end(): StreamEnd {
    // A stream stopped whose held events then overflowed was not read to its end.
    return (this.#stopped && !this.overflow) || this.textCut ? 'done' : 'cut-off';
  }

  get text(): string {
    return this.#text;
  }

  /** Every call of the message, by block index; none for a message that did not stop (it may be incomplete). */
  calls(): FoundCall[] {
    if (this.end === 'cut-off' || this.textCut) return [];
    if (this.#calls) return this.#calls;
    const calls: BlockCall[] = [];
    for (const [index, block] of [...this.#blocks].sort(([a], [b]) => a - b)) {
      const call = callOfBlock(block.start, index, block.json === '' ? undefined : block.json);
      if (!call) continue;
      const own = record(block.start.input);
      // Input in the start and in pieces too: some clients would read one, others the other.
      const why = block.broken ?? (block.json !== '' && own && Object.keys(own).length > 0 ? 'its input came both whole and in pieces' : undefined);
      calls.push(why && call.unreadable === undefined ? { ...call, unreadable: why } : call);
    }
    return (this.#calls = calls);
  }

  /**
   * What was held: each call's block whole as checked at its place (its first event), or, refused, the text block that
   * replaces it; every other event as it came, the stop reason made `end_turn` when no call is left.
   */
  release(refused: Refusals): string {
    const replaced = this.#decidedBlocks(refused);
    const callsLeft = [...replaced.values()].some((block) => block.type === 'tool_use');
    const written = new Set<number>();
    // What was held for the classification goes out first.
    let out = this.write(this.hold.take()) ?? '';
    for (const event of this.heldForCalls) {
      const index = event.index;
      if (typeof index === 'number' && String(event.type).startsWith('content_block_') && replaced.has(index)) {
        if (!written.has(index)) out += blockEvents(replaced.get(index)!, index);
        written.add(index);
        continue;
      }
      const delta = record(event.delta);
      if (event.type === 'message_delta' && delta?.stop_reason === 'tool_use' && !callsLeft) out += anthropicEvent({ ...event, delta: { ...delta, stop_reason: 'end_turn' } });
      else out += anthropicEvent(event);
    }
    return out;
  }

  /**
   * The end of a message stopped before its end (cut for its text, or held whole and withheld): what the client has
   * of it, the open text block ended with `text` (the replacement, when withheld), `message_delta` and `message_stop`.
   * Nothing held goes out, and no call is released.
   */
  releaseCut(text: string | undefined): string {
    this.hold.take();
    return this.#client.ending(this.#begun, this.#cutAt, text);
  }

  /** The message as the client received it from {@link releaseCut}. */
  deliveredCut(text: string | undefined): AssistantTurn {
    return this.#client.delivered(this.#cutAt, text);
  }

  /** The message's content as the client receives it, once `refused` are replaced. */
  delivered(refused: Refusals): AssistantTurn {
    const replaced = this.#decidedBlocks(refused);
    const content = [...this.#blocks].sort(([a], [b]) => a - b).map(([index, block]) => replaced.get(index) ?? (block.start.type === 'text' ? { ...block.start, text: block.text } : block.start));
    return contentTurn(content);
  }

  /** Each call's block as it goes out, by index: as checked when allowed, its refusal's text block when refused. */
  #decidedBlocks(refused: Refusals): Map<number, Record<string, unknown>> {
    const blocks = new Map<number, Record<string, unknown>>();
    for (const call of this.calls() as BlockCall[]) {
      const refusal = refused.get(call);
      const start = this.#blocks.get(call.blockIndex)!.start;
      blocks.set(call.blockIndex, refusal ? refusalBlock(refusal) : { ...start, input: argumentsOf(call.arguments) });
    }
    return blocks;
  }
}

