/**
 * What the proxy does with each chunk of a streamed chat completion, without I/O: text goes to the client at once;
 * every tool-call piece, in any choice (`tool_calls`, the legacy `function_call`, a `message` some upstreams put in a
 * chunk), before or after the finish chunk, is taken out and held until the response has ended and its calls are
 * checked; the finish chunk and everything after it wait for them. The client sees only the calls the gate put
 * together and released whole, so it runs exactly what was checked. Streaming therefore cannot bypass a check: the
 * stream's end runs the same classification as a non-streamed response (the failure to avoid is LiteLLM's, whose
 * post-call guardrails were skipped on streams: BerriAI/litellm#35257).
 * @module
 */
import type { LoopFinding, StreamWatch } from '../loops/index.js';
import type { AssistantTurn } from '../messages/index.js';
import type { TextWatch } from '../monitor/index.js';
import { MAX_NESTING, nestsDeeperThan } from './answer-body.js';
import { firstChoiceDelivered, record, type FoundCall } from './answer-calls.js';
import { isRefused, refusalText, type RefusedToolCall } from './enforce.js';
import type { ChatCompletionChunk } from './openai-types.js';
import { DONE_EVENT, sseEvent } from './sse.js';
import { TextHold, type HoldBound, type TextMatch } from './text-hold.js';

export { DONE_EVENT } from './sse.js';

/**
 * A tool call put together from its pieces. A piece that cannot be read breaks it: its name becomes `undefined`, so it
 * is refused, and no later piece is added.
 */
interface HeldCall extends FoundCall {
  name: string | undefined;
  arguments: string;
  kind: 'function' | 'custom' | 'legacy';
}

/** What the gate holds of one choice: its calls by their `index`, its legacy call, whether it sent text. A piece with no `index` is a call of its own. */
interface HeldChoice {
  calls: HeldCall[];
  legacy?: HeldCall;
  hasText: boolean;
}

/** How a stream's data ended: with `[DONE]`, after a finish chunk only, or cut off before its finish chunk. */
export type StreamEnd = 'done' | 'finished' | 'cut-off';

/** The fields of a delta (or a chunk's message) that carry calls: held, never passed on as they came. */
const CALL_FIELDS = ['tool_calls', 'function_call'] as const;
/** Most calls per choice: an `index` past it is dropped as malformed rather than allocating a huge list. */
const MAX_CALL_INDEX = 1024;

/**
 * Reads one streamed response, chunk by chunk. `push` returns the SSE text to send now (or nothing); `calls()` and
 * `text` are the response as the proxy decides it; `release` returns the SSE text of what was held, once decided.
 * @example
 * const gate = new StreamGate();
 * for (const data of events) { const now = gate.push(data); if (now) write(now); }
 * const refused = await decideCalls(gate.calls(), gate.text, check, offered);
 * write(gate.release([...refused.values()]));
 */
export class StreamGate {
  /** Data events that were not JSON, not a chunk, or nested too deep: dropped (a call inside one could not be checked). */
  malformed = 0;
  /** Whether `[DONE]` arrived. */
  done = false;
  #text = '';
  readonly #choices = new Map<number, HeldChoice>();
  /** Every call in the order its first piece came. */
  readonly #order: HeldCall[] = [];
  /** The first chunk, whose `id`, `model`, `created` the released chunks copy. */
  #template: ChatCompletionChunk | undefined;
  /** The finish chunk and everything after it (a usage chunk), parsed, their calls taken out. */
  readonly #held: ChatCompletionChunk[] = [];
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
  /**
   * The state whose pattern the first choice's text matched, when the response was cut for it: a response the monitor
   * would withhold. The stream ends there (`done`); the delta that completed the match never went out.
   */
  textCut: TextMatch | undefined;
  /** The text watch and, with `holdText`, what would have gone out, held until the response is classified or a bound is passed. */
  readonly #hold: TextHold<string>;
  readonly #maxHeldChars: number;
  readonly #maxTextChars: number;
  readonly #format: 'chat' | 'completions';

  /**
   * @param limits `maxHeldChars`: most tool-call text held (default 10 MiB); `maxTextChars`: most response text kept
   * for classification (default 64 KiB; the classifier reads the first 8k characters). The text itself always passes.
   * `watch`: the loop detector's watch over this response (`detector.watchStream()`); once it reports, the response
   * is cut short. `format`: `completions` for a legacy completion's stream, whose text is each choice's `text` (and
   * the proxy's own text goes there too) rather than `delta.content`. `textWatch`: the monitor's watch over the
   * text (`monitor.watchText`); once it matches, the response is cut before that delta (see `textCut`). `holdText`
   * (with a `textWatch`): nothing of the text goes out until the response ends (see `holding`), unless the held events
   * pass `maxChars` or the first was held `maxMs` ago; then they go out and the rest streams (`flushHeld`).
   */
  constructor({
    maxHeldChars = 10 * 1024 * 1024,
    maxTextChars = 65_536,
    watch,
    format = 'chat',
    textWatch,
    holdText,
  }: { maxHeldChars?: number; maxTextChars?: number; watch?: StreamWatch; format?: 'chat' | 'completions'; textWatch?: TextWatch; holdText?: HoldBound } = {}) {
    this.#hold = new TextHold<string>(textWatch, holdText, (event) => event.length);
    this.#maxHeldChars = maxHeldChars;
    this.#maxTextChars = maxTextChars;
    this.#watch = watch;
    this.#format = format;
  }

  /** Takes the `data` of one server-sent event; returns the SSE text to pass on now, if any. */
  push(data: string): string | undefined {
    if (this.done) return undefined;
    if (data.trim() === '[DONE]') {
      this.done = true;
      return undefined;
    }
    const chunk = parseChunk(data);
    if (!chunk) {
      this.malformed++;
      return undefined;
    }
    this.#template ??= chunk;
    const choices = (chunk.choices ?? []) as unknown[];
    let passed: unknown[] | undefined; // a copy of the choices, made once a choice's call pieces are taken out
    let finish = false;
    let cut: TextMatch | undefined;
    choices.forEach((value, position) => {
      const choice = record(value);
      if (!choice) return;
      const key = typeof choice.index === 'number' ? choice.index : position;
      const held = this.#choice(key);
      if (choice.finish_reason != null) finish = true;
      const text = this.#textOf(choice);
      if (typeof text === 'string' && text !== '') {
        held.hasText = true;
        if (key === 0 && this.#text.length < this.#maxTextChars) this.#text += text;
        if (key === 0) cut ??= this.#hold.see(text);
      }
      for (const field of ['delta', 'message'] as const) {
        const carrier = record(choice[field]);
        if (!carrier || !CALL_FIELDS.some((name) => carrier[name] != null)) continue;
        this.#collect(held, key, carrier);
        const { tool_calls: _calls, function_call: _legacy, ...rest } = carrier;
        passed ??= [...choices];
        passed[position] = { ...record(passed[position]), [field]: rest };
      }
    });
    if (cut) {
      // Nothing of this chunk goes out: its text completed the match. No more upstream data is read.
      this.textCut = cut;
      this.done = true;
      this.#finished = true;
      return undefined;
    }
    const out: ChatCompletionChunk = passed ? { ...chunk, choices: passed as ChatCompletionChunk['choices'] } : chunk;
    if (this.#finished || finish) {
      this.#finished = true;
      this.#held.push(out);
      return undefined;
    }
    const first = choices.length > 0 ? record(choices[0]) : undefined;
    if (first && (typeof first.index !== 'number' || first.index === 0)) this.#watchDelta(this.#format === 'chat' ? record(first.delta) : { content: first.text }); // the delta itself still goes out: a cut ends the stream after it
    // What a chunk that carried call pieces says besides (text, a role) goes on; the pieces wait. A chunk goes out as
    // it was parsed, never as the upstream's bytes: a reader that takes a duplicated key otherwise sees what was read.
    const says = !passed || out.choices!.some((choice) => Object.values(record(record(choice)?.delta) ?? {}).some((value) => value != null) || (this.#format === 'completions' && this.#textOf(record(choice) ?? {}) !== undefined));
    return this.#pass(says ? sseEvent(JSON.stringify(out)) : undefined);
  }

  /** Whether nothing of the text went out yet, held for the classification (`holdText`, within its bounds). */
  get holding(): boolean {
    return this.#hold.holding;
  }

  /**
   * Stops holding: returns what was held, to send now; the rest streams. `bound` says which bound was passed (a miss,
   * counted by the text watch).
   */
  flushHeld(bound: 'bytes' | 'time'): string | undefined {
    return this.#hold.flush(bound).join('') || undefined;
  }

  /** An event to send now, or held with `holdText` (sent with what was held once a bound is passed). */
  #pass(event: string | undefined): string | undefined {
    // Most streams hold nothing: their chunks go out without the hold's bookkeeping.
    return this.#hold.holding ? this.#hold.pass(event).join('') || undefined : event;
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
    const finish = this.#format === 'chat' ? { index: 0, delta: {}, finish_reason: 'stop' } : { index: 0, text: '', finish_reason: 'stop', logprobs: null };
    this.#held.push({ ...rest, choices: [finish], panoptes: { loop: { kind: found.kind, detail: found.detail } } } as ChatCompletionChunk);
  }

  /** How the data ended, once the upstream body has. */
  get end(): StreamEnd {
    return this.done ? 'done' : this.#finished ? 'finished' : 'cut-off';
  }

  /** The first choice's text, for classification (at most `maxTextChars` of it). */
  get text(): string {
    return this.#text;
  }

  /**
   * Every call the stream carried, in the order each began, in every choice. None for a response cut off before its
   * finish chunk (its calls may be incomplete, so they are never released, and a call never released never ran) or
   * cut short for a loop. A call whose pieces could not be read has no name, so it is refused.
   */
  calls(): FoundCall[] {
    return this.end === 'cut-off' || this.loop !== undefined || this.textCut !== undefined ? [] : this.#order;
  }

  /**
   * The SSE text of what was held, for a stream that finished: per choice, each allowed call as one complete delta
   * (renumbered from 0) and the refusal text as a content delta; then the finish chunks (`finish_reason: stop` for a
   * choice with no call left), what came after them, and `[DONE]`. `refused`: the refusals of calls of `calls()`,
   * as `decideCalls` returns them, or a list matched by id, else name.
   */
  release(refused: ReadonlyMap<FoundCall, RefusedToolCall> | readonly RefusedToolCall[]): string {
    const refusalOf = refused instanceof Map ? (call: FoundCall) => refused.get(call) : (call: FoundCall) => (refused as readonly RefusedToolCall[]).find((entry) => isRefused([entry], { id: call.id, function: { name: call.name } }));
    const calls = this.calls() as HeldCall[];
    const stopped = new Set<number>();
    let out = '';
    for (const [key, held] of [...this.#choices].sort(([a], [b]) => a - b)) {
      const mine = calls.filter((call) => call.choice === key);
      const reasons = mine.flatMap((call) => refusalOf(call) ?? []);
      const allowed = mine.filter((call) => refusalOf(call) === undefined);
      allowed.filter((call) => call.kind !== 'legacy').forEach((call, index) => (out += sseEvent(JSON.stringify(this.#chunk(key, { tool_calls: [toolCallDelta(call, index)] })))));
      const legacy = allowed.find((call) => call.kind === 'legacy');
      if (legacy) out += sseEvent(JSON.stringify(this.#chunk(key, { function_call: { name: legacy.name, arguments: legacy.arguments } })));
      if (reasons.length > 0) {
        const text = `${held.hasText ? '\n\n' : ''}${refusalText(reasons)}`;
        out += sseEvent(JSON.stringify(this.#format === 'chat' ? this.#chunk(key, { content: text }) : this.#textChunk(key, text)));
      }
      if (mine.length > 0 && allowed.length === 0) stopped.add(key);
    }
    for (const held of this.#held) out += sseEvent(JSON.stringify(withStops(held, stopped)));
    // Text held for the classification goes out first.
    return this.#hold.take().join('') + out + DONE_EVENT;
  }

  /**
   * The end of a stream cut for its text (`textCut`): `text` (the replacement of a withheld response) as the first
   * choice's last delta, a finish chunk (`content_filter` when replaced, else `stop`), and `[DONE]`. No call is released.
   */
  releaseCut(text: string | undefined): string {
    const separated = text === undefined ? undefined : `${this.#hold.shown === '' ? '' : '\n\n'}${text}`;
    const { choices: _choices, usage: _usage, ...rest } = this.#template ?? {};
    const reason = text === undefined ? 'stop' : 'content_filter';
    // A client that saw nothing yet gets the role too (OpenAI's clients need it for the choice).
    const nothing = this.#format === 'chat' && this.#hold.shown === '' ? sseEvent(JSON.stringify(this.#chunk(0, { role: 'assistant', content: '' }))) : '';
    let out = separated === undefined ? nothing : sseEvent(JSON.stringify(this.#format === 'chat' ? this.#chunk(0, { ...(this.#hold.shown === '' ? { role: 'assistant' } : {}), content: separated }) : this.#textChunk(0, separated)));
    const finish = this.#format === 'chat' ? { index: 0, delta: {}, finish_reason: reason } : { index: 0, text: '', finish_reason: reason, logprobs: null };
    out += sseEvent(JSON.stringify({ ...rest, choices: [finish] }));
    return out + DONE_EVENT;
  }

  /** The first choice as the client received it from a stream cut for its text, ended with `text`. */
  deliveredCut(text: string | undefined): AssistantTurn {
    return { content: text === undefined ? this.#hold.shown : this.#hold.shown === '' ? text : `${this.#hold.shown}\n\n${text}`, toolCalls: [] };
  }

  /** The first choice as the client receives it once `refused` are taken out (see `firstChoiceDelivered`). */
  delivered(refused: ReadonlyMap<FoundCall, RefusedToolCall>): AssistantTurn {
    return firstChoiceDelivered(this.calls(), this.#text, refused);
  }

  #choice(key: number): HeldChoice {
    let held = this.#choices.get(key);
    if (!held) this.#choices.set(key, (held = { calls: [], hasText: false }));
    return held;
  }

  /** Puts the call pieces of one delta (or message) of choice `key` with the calls they belong to. */
  #collect(held: HeldChoice, key: number, carrier: Record<string, unknown>): void {
    const { tool_calls: calls, function_call: legacy } = carrier;
    if (Array.isArray(calls)) {
      for (const value of calls) {
        const piece = record(value);
        const index = piece?.index;
        if (index !== undefined && !(Number.isInteger(index) && (index as number) >= 0 && (index as number) <= MAX_CALL_INDEX)) {
          this.malformed++;
          continue;
        }
        const custom = piece?.function === undefined && piece?.custom !== undefined;
        const kind = custom ? 'custom' : 'function';
        const call = index === undefined ? this.#newCall(key, kind) : (held.calls[index as number] ??= this.#newCall(key, kind));
        this.#add(call, piece);
      }
    } else if (calls != null) {
      this.#newCall(key, 'function').name = undefined; // not a list: nothing in it can be read
    }
    if (legacy != null) this.#add((held.legacy ??= this.#newCall(key, 'legacy')), { function: legacy });
  }

  #newCall(choice: number, kind: HeldCall['kind']): HeldCall {
    const call: HeldCall = { choice, name: '', arguments: '', kind, ...(kind === 'custom' ? { custom: true } : {}) };
    this.#order.push(call);
    return call;
  }

  /** Adds one piece to its call; a piece of the wrong shape breaks the call. */
  #add(call: HeldCall, piece: Record<string, unknown> | undefined): void {
    if (call.name === undefined) return;
    const { kind } = call;
    const raw = kind === 'custom' ? piece?.custom : piece?.function;
    const part = record(raw);
    const name = part?.name;
    const args = kind === 'custom' ? part?.input : part?.arguments;
    if (!piece || (raw != null && !part) || (name != null && typeof name !== 'string') || (args != null && typeof args !== 'string') || (piece.id != null && typeof piece.id !== 'string')) {
      call.name = undefined;
      return;
    }
    this.#heldChars += (name?.length ?? 0) + (args?.length ?? 0);
    if (this.#heldChars > this.#maxHeldChars) {
      this.overflow = true;
      return;
    }
    if (typeof piece?.id === 'string') call.id = piece.id;
    if (typeof name === 'string') call.name += name;
    if (typeof args === 'string') call.arguments += args;
  }

  #chunk(index: number, delta: Record<string, unknown>): ChatCompletionChunk {
    const { choices: _choices, usage: _usage, ...rest } = this.#template ?? {};
    return { ...rest, choices: [{ index, delta, finish_reason: null }] };
  }

  /** A legacy completion's chunk carrying `text` in choice `index`. */
  #textChunk(index: number, text: string): ChatCompletionChunk {
    const { choices: _choices, usage: _usage, ...rest } = this.#template ?? {};
    return { ...rest, choices: [{ index, text, finish_reason: null, logprobs: null }] };
  }

  /** The text a choice of a chunk carries: `delta.content` in a chat stream, `text` in a legacy completion's. */
  #textOf(choice: Record<string, unknown>): string | undefined {
    const text = this.#format === 'chat' ? record(choice.delta)?.content : choice.text;
    return typeof text === 'string' && text !== '' ? text : undefined;
  }
}

/** A data event as a chunk: a JSON object, not nested too deep, whose `choices` (if any) is a list. */
function parseChunk(data: string): ChatCompletionChunk | undefined {
  if (nestsDeeperThan(data, MAX_NESTING)) return undefined;
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    return undefined;
  }
  const parsed = record(chunk);
  return parsed && (parsed.choices == null || Array.isArray(parsed.choices)) ? (parsed as ChatCompletionChunk) : undefined;
}

function toolCallDelta(call: HeldCall, index: number): Record<string, unknown> {
  const id = call.id === undefined ? {} : { id: call.id };
  if (call.kind === 'custom') return { index, ...id, type: 'custom', custom: { name: call.name, input: call.arguments } };
  return { index, ...id, type: 'function', function: { name: call.name, arguments: call.arguments } };
}

/** `chunk` with `finish_reason: stop` for each choice in `stopped` that finished for its (now withheld) calls. */
function withStops(chunk: ChatCompletionChunk, stopped: ReadonlySet<number>): ChatCompletionChunk {
  if (stopped.size === 0 || !Array.isArray(chunk.choices)) return chunk;
  return {
    ...chunk,
    choices: chunk.choices.map((choice, position) => {
      const key = typeof choice?.index === 'number' ? choice.index : position;
      return stopped.has(key) && (choice.finish_reason === 'tool_calls' || choice.finish_reason === 'function_call') ? { ...choice, finish_reason: 'stop' } : choice;
    }),
  };
}
