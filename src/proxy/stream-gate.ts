/**
 * What the proxy does with each chunk of a streamed chat completion, without I/O: text goes to the client at once,
 * tool-call deltas are held until the response has ended and its calls are checked, and the finish chunk (with
 * everything after it) waits for them. Streaming therefore cannot bypass a check: the stream's end runs the same
 * classification as a non-streamed response (the failure to avoid is LiteLLM's, whose post-call guardrails were
 * skipped on streams: BerriAI/litellm#35257).
 * @module
 */
import type { LoopFinding, StreamWatch } from '../loops/index.js';
import type { AssistantTurn } from '../messages/index.js';
import type { ChatCompletionChunk, OpenAIToolCallDelta } from './openai-types.js';
import { isRefused, refusalText, type RefusedToolCall } from './enforce.js';
import { argumentsOf } from './translate.js';

/** A tool call put together from its deltas. */
interface HeldCall {
  id?: string;
  name: string;
  arguments: string;
}

/** The SSE line that ends an OpenAI stream. */
export const DONE_EVENT = 'data: [DONE]\n\n';

/** How a stream's data ended: with `[DONE]`, after a finish chunk only, or cut off before its finish chunk. */
export type StreamEnd = 'done' | 'finished' | 'cut-off';

/**
 * Reads one streamed response, chunk by chunk. `push` returns the SSE text to send now (or nothing); `turn` is the
 * response as the monitor classifies it; `release` returns the SSE text of what was held, once the calls are checked.
 * @example
 * const gate = new StreamGate();
 * for (const data of events) { const now = gate.push(data); if (now) write(now); }
 * const refused = await checkTurn(monitor, sessionId, gate.turn());
 * write(gate.release(refused));
 */
export class StreamGate {
  /** Data events that were not JSON, or not a chunk: dropped (a tool call inside one could not be checked). */
  malformed = 0;
  /** Whether `[DONE]` arrived. */
  done = false;
  #text = '';
  readonly #calls: HeldCall[] = [];
  /** The first chunk, whose `id`, `model`, `created` the released chunks copy. */
  #template: ChatCompletionChunk | undefined;
  /** The finish chunk and everything after it (a usage chunk), as parsed chunks and raw data. */
  readonly #held: Array<ChatCompletionChunk | string> = [];
  #finished = false;
  #heldChars = 0;
  /** Set when the held tool-call text passed `maxHeldChars`: the calls cannot be checked whole, so none is released. */
  overflow = false;
  /**
   * The loop the watch found, when the response was cut short for it: the stream ends there (`done`), with a finish
   * chunk of its own, and the tool calls begun before the cut are never released.
   */
  loop: LoopFinding | undefined;
  readonly #watch: StreamWatch | undefined;
  readonly #maxHeldChars: number;
  readonly #maxTextChars: number;

  /**
   * @param limits `maxHeldChars`: most tool-call text held (default 10 MiB); `maxTextChars`: most response text kept
   * for classification (default 64 KiB; the classifier reads the first 8k characters). The text itself always passes.
   * `watch`: the loop detector's watch over this response (`detector.watchStream()`); once it reports, the response
   * is cut short.
   */
  constructor({ maxHeldChars = 10 * 1024 * 1024, maxTextChars = 65_536, watch }: { maxHeldChars?: number; maxTextChars?: number; watch?: StreamWatch } = {}) {
    this.#maxHeldChars = maxHeldChars;
    this.#maxTextChars = maxTextChars;
    this.#watch = watch;
  }

  /** Takes the `data` of one server-sent event; returns the SSE text to pass on now, if any. */
  push(data: string): string | undefined {
    if (this.done) return undefined;
    if (data.trim() === '[DONE]') {
      this.done = true;
      return undefined;
    }
    let chunk: ChatCompletionChunk;
    try {
      chunk = JSON.parse(data) as ChatCompletionChunk;
    } catch {
      this.malformed++;
      return undefined;
    }
    if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk)) {
      this.malformed++;
      return undefined;
    }
    this.#template ??= chunk;
    if (this.#finished) {
      this.#held.push(data);
      return undefined;
    }
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!choice) return event(data); // a chunk without choices (usage, a keep-alive) before the finish
    const delta = choice.delta;
    if (typeof delta?.content === 'string' && this.#text.length < this.#maxTextChars) this.#text += delta.content;
    const calls = Array.isArray(delta?.tool_calls) ? delta.tool_calls : undefined;
    if (calls) for (const call of calls) this.#collect(call);
    if (choice.finish_reason != null) {
      this.#finished = true;
      this.#held.push(calls ? withoutToolCalls(chunk) : chunk);
      return undefined;
    }
    this.#watchDelta(delta); // the delta itself still goes out: a cut ends the stream after it
    if (!calls) return event(data);
    // The text (or role) of a chunk that also carries tool-call pieces goes on; the pieces wait.
    const hasMore = typeof delta?.content === 'string' || typeof delta?.role === 'string';
    return hasMore ? event(JSON.stringify(withoutToolCalls(chunk))) : undefined;
  }

  /**
   * Feeds the watch a passing delta's text and reasoning (`reasoning_content`, as vLLM and DeepSeek stream it). When it
   * finds a loop, the response ends here: no more upstream data is read (`done`), and a finish chunk of our own is
   * held for `release`.
   */
  #watchDelta(delta: { content?: unknown; reasoning_content?: unknown } | undefined): void {
    if (!this.#watch || !delta) return;
    const found = (typeof delta.content === 'string' ? this.#watch.text(delta.content) : null) ?? (typeof delta.reasoning_content === 'string' ? this.#watch.reasoning(delta.reasoning_content) : null);
    if (!found) return;
    this.loop = found;
    this.done = true;
    this.#finished = true;
    const { choices: _choices, usage: _usage, ...rest } = this.#template ?? {};
    this.#held.push({ ...rest, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], panoptes: { loop: { kind: found.kind, detail: found.detail } } } as ChatCompletionChunk);
  }

  /** How the data ended, once the upstream body has. */
  get end(): StreamEnd {
    return this.done ? 'done' : this.#finished ? 'finished' : 'cut-off';
  }

  /**
   * The response for classification. A response cut off before its finish chunk has only its text: its tool calls
   * may be incomplete, so they are never released, and a call that is never released never ran.
   */
  turn(): AssistantTurn {
    const complete = this.end !== 'cut-off' && this.loop === undefined;
    return {
      content: this.#text,
      toolCalls: complete ? this.#calls.filter(Boolean).map((call) => ({ ...(call.id === undefined ? {} : { id: call.id }), name: call.name, args: argumentsOf(call.arguments) })) : [],
    };
  }

  /**
   * The SSE text of what was held, for a stream that finished: each allowed tool call as one complete delta
   * (renumbered from 0), the refusal text as a content delta, the finish chunk (`finish_reason: stop` when no call is
   * left), what came after it, and `[DONE]`.
   */
  release(refused: readonly RefusedToolCall[]): string {
    const allowed = this.loop !== undefined ? [] : this.#calls.filter((call) => call !== undefined && !isRefused(refused, { id: call.id, function: { name: call.name } }));
    let out = '';
    allowed.forEach((call, index) => {
      const delta = { tool_calls: [{ index, ...(call.id === undefined ? {} : { id: call.id }), type: 'function', function: { name: call.name, arguments: call.arguments } }] };
      out += event(JSON.stringify(this.#chunk(delta)));
    });
    if (refused.length > 0) out += event(JSON.stringify(this.#chunk({ content: `${this.#text === '' ? '' : '\n\n'}${refusalText(refused)}` })));
    for (const held of this.#held) {
      if (typeof held === 'string') out += event(held);
      else out += event(JSON.stringify(allowed.length === 0 && this.#calls.length > 0 ? withFinishReason(held, 'stop') : held));
    }
    return out + DONE_EVENT;
  }

  #collect(delta: OpenAIToolCallDelta): void {
    const index = typeof delta.index === 'number' ? delta.index : this.#calls.length;
    if (index < 0 || index > 1024) {
      this.malformed++;
      return;
    }
    const call = (this.#calls[index] ??= { name: '', arguments: '' });
    this.#heldChars += (delta.function?.name?.length ?? 0) + (delta.function?.arguments?.length ?? 0);
    if (this.#heldChars > this.#maxHeldChars) {
      this.overflow = true;
      return;
    }
    if (typeof delta.id === 'string') call.id = delta.id;
    if (typeof delta.function?.name === 'string') call.name += delta.function.name;
    if (typeof delta.function?.arguments === 'string') call.arguments += delta.function.arguments;
  }

  #chunk(delta: Record<string, unknown>): ChatCompletionChunk {
    const { choices: _choices, usage: _usage, ...rest } = this.#template ?? {};
    return { ...rest, choices: [{ index: 0, delta, finish_reason: null }] };
  }
}

function event(data: string): string {
  return `data: ${data}\n\n`;
}

function withoutToolCalls(chunk: ChatCompletionChunk): ChatCompletionChunk {
  return {
    ...chunk,
    choices: chunk.choices!.map((choice, index) => {
      if (index !== 0 || !choice.delta) return choice;
      const { tool_calls: _held, ...delta } = choice.delta;
      return { ...choice, delta };
    }),
  };
}

function withFinishReason(chunk: ChatCompletionChunk, reason: string): ChatCompletionChunk {
  if (!Array.isArray(chunk.choices) || chunk.choices[0]?.finish_reason !== 'tool_calls') return chunk;
  return { ...chunk, choices: chunk.choices.map((choice, index) => (index === 0 ? { ...choice, finish_reason: reason } : choice)) };
}
