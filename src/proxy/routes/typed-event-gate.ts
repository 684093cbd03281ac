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
  /** The text watch, and with `holdText` the events held for the classification (before any held for calls). */
  protected readonly hold: TextHold<Record<string, unknown>>;

  constructor({ textWatch, holdText }: GateOptions) {
    this.hold = new TextHold(textWatch, holdText, (event) => JSON.stringify(event).length);
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
