/**
 * What the stream gates of the routes whose streams are typed events (the Responses API, Anthropic Messages) share of
 * the text policy: the text watch and hold (text-hold.ts), and writing events for the client while noting what it has
 * of the answer, so an answer stopped early can be ended well-formed.
 * @module
 */
import { TextHold, type TextMatch } from '../text-hold.js';
import type { GateOptions } from './route.js';

/** The text policy of a gate over typed events; a route's gate says how an event is written and what the client has. */
export abstract class TypedEventGate {
  done = false;
  /** Set when the events held for calls passed `maxHeldChars`: the answer cannot be checked, and ends. */
  overflow = false;
  /** The text watch, and with `holdText` the events held for the classification (before any held for calls). */
  protected readonly hold: TextHold<Record<string, unknown>>;
  /** Every event from the first that could carry a call, parsed, in order. */
  protected readonly heldForCalls: Array<Record<string, unknown>> = [];
  /** Whether events are held for calls now (from the first that could carry one). */
  protected holdingForCalls = false;
  #heldChars = 0;
  readonly #maxHeldChars: number;

  constructor({ textWatch, holdText, maxHeldChars }: GateOptions) {
    this.hold = new TextHold(textWatch, holdText, (event) => JSON.stringify(event).length);
    this.#maxHeldChars = maxHeldChars;
  }

  /** Passes an event on now, or holds it once holding for calls began (past the limit, the answer cannot be checked: it ends). */
  protected pass(event: Record<string, unknown>): string | undefined {
    if (!this.holdingForCalls) return this.write(this.hold.pass(event));
    this.#heldChars += JSON.stringify(event).length;
    if (this.#heldChars > this.#maxHeldChars) {
      this.overflow = true;
      this.done = true;
      return undefined;
    }
    this.heldForCalls.push(event);
    return undefined;
  }

  /** Set when the answer was cut because its text matched a state the monitor would withhold it for. */
  get textCut(): TextMatch | undefined {
    return this.hold.cut;
  }

  /** Whether nothing went out yet, held for the classification. */
  get holding(): boolean {
    return this.hold.holding;
  }

  /** Stops holding past a bound: what was held, to send now; the rest streams. */
  flushHeld(bound: 'bytes' | 'time'): string | undefined {
    return this.write(this.hold.flush(bound));
  }

  /** Writes `events` for the client, noting each as sent; `undefined` for none. */
  protected write(events: ReadonlyArray<Record<string, unknown>>): string | undefined {
    let out = '';
    for (const event of events) {
      this.sent(event);
      out += this.eventText(event);
    }
    return out === '' ? undefined : out;
  }

  /** Notes that the client was sent `event`. */
  protected abstract sent(event: Record<string, unknown>): void;

  /** The SSE text of `event`. */
  protected abstract eventText(event: Record<string, unknown>): string;
}
