/**
 * What the proxy does with each event of a streamed Responses API answer, without I/O. Events that cannot carry a call
 * (the response's creation, text, reasoning, the provider's own tools) go to the client at once, until the first event
 * that can: from there on everything waits, in order, for the end of the stream and the checks. Each call is put
 * together from every place the stream carried it (the item as added, its argument deltas, their `done` event, the
 * item as done, and the completed response's `output`); places that disagree make it a call that cannot be read, so
 * it is refused. Then each call item goes out whole as checked, or, refused, a message item saying why takes its
 * place at the same `output_index`, and the completed response's `output` says the same.
 *
 * With the monitor's text watch, `output_text` deltas are watched as they pass (text_policy `stream`): the delta that
 * completes a match never goes out, no more upstream events are read, and the stream ends well-formed (see
 * client-view.ts). With `hold`, nothing goes out until the answer is classified, within the bounds (text-hold.ts).
 * @module
 */
import { parseTypedEvent as parseEvent } from '../typed-event.js';
import { record, type FoundCall } from '../../answer-calls.js';
import type { AssistantTurn } from '../../../messages/index.js';
import type { AnswerGate, Refusals } from '../route.js';
import type { StreamEnd } from '../../stream-gate.js';
import { TypedEventGate } from '../typed-event-gate.js';
import { ClientResponse, LIFECYCLE, type TextPlace } from './client-view.js';
import { ResponseEventWriter } from './events.js';
import { callOfItem, outputTurn, refusalItem, type ResponseCall } from './items.js';

/** Events that end the stream with the whole response. */
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);
/** Events that cannot carry a call the client runs, by their type's prefix (text, reasoning, the provider's own tools). */
const SAFE_PREFIXES = ['response.output_text.', 'response.content_part.', 'response.refusal.', 'response.reasoning', 'response.audio.', 'response.web_search_call.', 'response.file_search_call.', 'response.code_interpreter_call', 'response.image_generation_call.', 'response.mcp_call', 'response.mcp_list_tools.'];
const SAFE = new Set(['error', 'keepalive']);
/** Most response text kept for classification (the classifier reads the first 8k characters). */
const MAX_TEXT_CHARS = 65_536;

/** What the stream said of one output item: as added, its argument (or input) deltas and their `done`, as done. */
interface StreamedItem {
  added?: Record<string, unknown>;
  done?: Record<string, unknown>;
  deltas: string;
  /** The `arguments` (or `input`) of the `...done` event, and the name it gave. */
  argumentsDone?: string;
  nameDone?: unknown;
  /** Set when a piece of it had the wrong shape. */
  broken?: string;
}

/** Reads one streamed Responses API answer; see the module's description. */
export class ResponsesStreamGate extends TypedEventGate implements AnswerGate {
  malformed = 0;
  readonly loop = undefined;
  readonly #writer = new ResponseEventWriter();
  readonly #items = new Map<number, StreamedItem>();
  #terminal: Record<string, unknown> | undefined;
  #id: string | undefined;
  #text = '';
  #calls: ResponseCall[] | undefined;
  /** What the client has of the response, for a stream that ends early. */
  readonly #client = new ClientResponse();
  /** The response as the upstream began it, without output. */
  #begun: Record<string, unknown> = { object: 'response', output: [] };
  /** Where the text that cut the answer went. */
  #cutAt: TextPlace | undefined;

  push(data: string): string | undefined {
    if (this.done) return undefined;
    if (data.trim() === '[DONE]') {
      this.done = true;
      return undefined;
    }
    const event = parseEvent(data);
    if (!event) {
      this.malformed++;
      return undefined;
    }
    const type = event.type as string;
    if (TERMINAL.has(type)) {
      const response = record(event.response);
      if (!response || (response.output != null && !Array.isArray(response.output))) {
        this.malformed++;
        return undefined;
      }
      this.#terminal = { ...event, response };
      if (typeof response.id === 'string') this.#id = response.id;
      this.done = true;
      return undefined;
    }
    if (LIFECYCLE.has(type)) {
      const response = record(event.response);
      if (typeof response?.id === 'string') this.#id ??= response.id;
      if (response) this.#begun = { ...response, output: [] };
      // Its output is empty as OpenAI sends it; one that holds a call (or cannot be read) goes without it, never unread.
      const output = response?.output;
      if (output != null && (!Array.isArray(output) || output.some((item, at) => callOfItem(item, at) !== undefined))) return this.pass({ ...event, response: { ...response, output: [] } });
      return this.pass(event);
    }
    const index = event.output_index;
    if (typeof index === 'number' && Number.isInteger(index) && index >= 0) this.#track(type, index, event);
    else if (type.startsWith('response.output_item.') || type.includes('_arguments.') || type.includes('_input.')) {
      this.malformed++; // an item event that says of no item where it goes cannot be put together
      return undefined;
    }
    if (type === 'response.output_text.delta' && typeof event.delta === 'string') {
      if (this.#text.length < MAX_TEXT_CHARS) this.#text += event.delta;
      if (this.hold.see(event.delta)) {
        // This delta completed the match: it never goes out, and no more upstream events are read.
        this.#cutAt = typeof index === 'number' ? { outputIndex: index, contentIndex: typeof event.content_index === 'number' ? event.content_index : 0 } : undefined;
        this.done = true;
        return undefined;
      }
    }
    if (!this.holdingForCalls && !this.#safe(type, event)) this.holdingForCalls = true;
    return this.pass(event);
  }

  protected sent(event: Record<string, unknown>): void {
    this.#client.note(event);
  }

  protected eventText(event: Record<string, unknown>): string {
    return this.#writer.event(event);
  }

  /** Whether an event can go to the client before the calls are checked: it can carry none. */
  #safe(type: string, event: Record<string, unknown>): boolean {
    if (SAFE.has(type) || SAFE_PREFIXES.some((prefix) => type.startsWith(prefix))) return true;
    if (type === 'response.output_item.added' || type === 'response.output_item.done') return callOfItem(event.item, 0) === undefined;
    return false;
  }

  /** Notes what an item event says of the item at `index`. */
  #track(type: string, index: number, event: Record<string, unknown>): void {
    let item = this.#items.get(index);
    if (!item) this.#items.set(index, (item = { deltas: '' }));
    switch (type) {
      case 'response.output_item.added':
      case 'response.output_item.done': {
        const value = record(event.item);
        if (!value) item.broken = 'an event carried it as something other than an object';
        else if (type.endsWith('added')) item.added = value;
        else item.done = value;
        break;
      }
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta':
        if (typeof event.delta === 'string') item.deltas += event.delta;
        else item.broken = 'a piece of it was not text';
        break;
      case 'response.function_call_arguments.done':
      case 'response.custom_tool_call_input.done': {
        const whole = type.endsWith('arguments.done') ? event.arguments : event.input;
        if (typeof whole === 'string') item.argumentsDone = whole;
        else item.broken = 'a piece of it was not text';
        if (event.name !== undefined) item.nameDone = event.name;
        break;
      }
    }
  }

  get end(): StreamEnd {
    return this.done && (this.#terminal || this.textCut) ? 'done' : 'cut-off';
  }

  get text(): string {
    const output = this.#terminal ? (record(this.#terminal.response)?.output as unknown[] | undefined) : undefined;
    return output ? outputTurn(output).content.slice(0, MAX_TEXT_CHARS) : this.#text;
  }

  get id(): string | undefined {
    return this.#id;
  }

  /**
   * Every call of the answer, by its output index: the item as the completed response has it, else as streamed, each
   * refused when the places that carried it disagree. None for an answer that did not complete.
   */
  calls(): FoundCall[] {
    if (this.end === 'cut-off' || this.textCut) return [];
    if (this.#calls) return this.#calls;
    const output = (record(this.#terminal!.response)?.output as unknown[] | undefined) ?? [];
    const indexes = [...new Set([...this.#items.keys(), ...output.keys()])].sort((a, b) => a - b);
    const calls: ResponseCall[] = [];
    for (const index of indexes) {
      const streamed = this.#items.get(index);
      const finished = index < output.length ? output[index] : undefined;
      const item = finished ?? (streamed ? streamedItem(streamed) : undefined);
      const call = callOfItem(item, index);
      if (!call) continue;
      const disagreement = streamed ? disagreementOf(streamed, finished) : undefined;
      calls.push(disagreement && call.unreadable === undefined ? { ...call, unreadable: disagreement } : call);
    }
    return (this.#calls = calls);
  }

  /**
   * What was held: each call item whole as checked at its place (its first event), or, refused, the message item that
   * replaces it; every other event as it came; then the event that ends the stream, its `output` the same.
   */
  release(refused: Refusals): string {
    const calls = this.calls() as ResponseCall[];
    const replaced = this.#decidedItems(calls, refused);
    const written = new Set<number>();
    // What was held for the classification goes out first.
    let out = this.write(this.hold.take()) ?? '';
    for (const event of this.heldForCalls) {
      const index = event.output_index;
      if (typeof index === 'number' && replaced.has(index)) {
        if (!written.has(index)) out += this.#writer.item(replaced.get(index)!, index);
        written.add(index);
        continue;
      }
      out += this.#writer.event(event);
    }
    if (this.#terminal) {
      const response = record(this.#terminal.response)!;
      const output = Array.isArray(response.output) ? response.output.map((item: unknown, at: number) => replaced.get(at) ?? item) : response.output;
      out += this.#writer.event({ ...this.#terminal, response: { ...response, output } });
    }
    return out;
  }

  /**
   * The end of an answer stopped before its end (cut for its text, or held whole and withheld): what the client has
   * of it, the open message ended with `text` (the replacement, when withheld), and `response.completed`. Nothing held
   * goes out, and no call is released.
   */
  releaseCut(text: string | undefined): string {
    this.hold.take();
    return this.#client.ending(this.#writer, this.#begun, this.#cutAt, text).events;
  }

  /** The answer as the client received it from {@link releaseCut}. */
  deliveredCut(text: string | undefined): AssistantTurn {
    return outputTurn(this.#client.ending(new ResponseEventWriter(), this.#begun, this.#cutAt, text).output);
  }

  /** The answer as the client receives it: the completed response's output (else the streamed items) as decided. */
  delivered(refused: Refusals): AssistantTurn {
    const calls = this.calls() as ResponseCall[];
    const replaced = this.#decidedItems(calls, refused);
    const output = (record(this.#terminal?.response)?.output as unknown[] | undefined) ?? [...this.#items.entries()].sort(([a], [b]) => a - b).map(([, item]) => streamedItem(item));
    return outputTurn(output.map((item, at) => replaced.get(at) ?? item));
  }

  /** Each call's item as it goes out, by output index: as checked when allowed, its refusal's message item when refused. */
  #decidedItems(calls: readonly ResponseCall[], refused: Refusals): Map<number, Record<string, unknown>> {
    const output = (record(this.#terminal?.response)?.output as unknown[] | undefined) ?? [];
    const items = new Map<number, Record<string, unknown>>();
    for (const call of calls) {
      const refusal = refused.get(call);
      const index = call.outputIndex;
      const streamed = this.#items.get(index);
      if (refusal) items.set(index, refusalItem(call, refusal));
      else items.set(index, record(index < output.length ? output[index] : undefined) ?? (streamed ? streamedItem(streamed) : {}));
    }
    return items;
  }
}

/** An item as the stream put it together: as done, else as added with its streamed arguments (or input). */
function streamedItem(item: StreamedItem): Record<string, unknown> {
  if (item.done) return item.done;
  const added = item.added ?? {};
  const whole = item.argumentsDone ?? item.deltas;
  if (added.type === 'function_call') return { ...added, arguments: whole };
  if (added.type === 'custom_tool_call') return { ...added, input: whole };
  return added;
}

/** Why the places a stream carried one call disagree about it (so it cannot be read), or `undefined`. */
function disagreementOf(item: StreamedItem, finished: unknown): string | undefined {
  if (item.broken) return `its stream could not be read (${item.broken})`;
  const versions: Array<Record<string, unknown>> = [];
  if (item.added) {
    const field = item.added.type === 'custom_tool_call' ? 'input' : 'arguments';
    const own = typeof item.added[field] === 'string' ? (item.added[field] as string) : '';
    // Arguments in the added item and in deltas too: some clients would read them twice, others once.
    if (item.deltas !== '' && own !== '') return 'it came both whole and in pieces';
    if (item.argumentsDone !== undefined && item.deltas !== '' && item.deltas !== item.argumentsDone) return 'its pieces and its whole arguments differ';
    if (item.nameDone !== undefined && item.nameDone !== item.added.name) return 'its name differs between the events that carried it';
    versions.push({ ...item.added, [field]: item.argumentsDone ?? (item.deltas !== '' ? item.deltas : own) });
  }
  if (item.done) versions.push(item.done);
  const whole = record(finished);
  if (whole) versions.push(whole);
  const first = versions[0];
  if (!first) return undefined;
  for (const other of versions.slice(1)) {
    for (const key of ['type', 'name', 'namespace', 'call_id', 'arguments', 'input', 'action', 'operation']) {
      if (JSON.stringify(other[key]) !== JSON.stringify(first[key])) return `the events that carried it differ in its ${key}`;
    }
  }
  return undefined;
}
