/**
 * The text policy of one streamed answer, the same on every route: with the monitor's text watch, each piece of the
 * answer's text is watched as it streams (`see`), so the answer can be cut where it matches a state the monitor would
 * withhold it for; with `hold`, the events that would go to the client wait (`pass`) until the answer is classified,
 * unless they pass a bound in characters or time: then they go out, the rest streams watched, and a miss is counted.
 * Each gate writes its own events; this only decides when they go.
 * @module
 */
import type { TextWatch } from '../monitor/index.js';

/** The state and pattern a piece of text completed a match of. */
export type TextMatch = { state: string; pattern: string };

/** Bounds of `hold`: most characters of events held, and longest the first one waits, in milliseconds. */
export interface HoldBound {
  maxChars: number;
  maxMs: number;
}

/** Watches and, with a bound, holds one answer's events; `Event` is what a gate holds (its SSE text, or parsed events). */
export class TextHold<Event> {
  /** The match that cut the answer, once a piece of text completed one. */
  cut: TextMatch | undefined;
  readonly #watch: TextWatch | undefined;
  readonly #bound: HoldBound | undefined;
  readonly #size: (event: Event) => number;
  #holding: boolean;
  #pending: Event[] = [];
  #pendingChars = 0;
  #since = 0;
  #shown = '';
  #pendingText = '';

  /**
   * @param watch The monitor's watch over the answer's text (`monitor.watchText`); none: nothing is watched or held.
   * @param bound With a `watch`: hold events within these bounds (`text_policy: hold`).
   * @param size An event's size in characters, for the bound.
   */
  constructor(watch: TextWatch | undefined, bound: HoldBound | undefined, size: (event: Event) => number) {
    this.#watch = watch;
    this.#bound = watch ? bound : undefined;
    this.#holding = this.#bound !== undefined;
    this.#size = size;
  }

  /** Whether nothing went out yet: the events wait for the classification (`hold`, within its bounds). */
  get holding(): boolean {
    return this.#holding;
  }

  /** The watched text that went out to the client (before a cut). */
  get shown(): string {
    return this.#shown;
  }

  /** Feeds the next piece of watched text; the match it completes (also kept in `cut`), or `undefined`. */
  see(text: string): TextMatch | undefined {
    if (!this.#watch || this.cut || text === '') return undefined;
    const match = this.#watch.text(text);
    if (match) return (this.cut = match);
    if (this.#holding) this.#pendingText += text;
    else this.#shown += text;
    return undefined;
  }

  /**
   * An event to send: returned at once, or held while holding; once the held events pass a bound, all of them are
   * returned (and the rest streams). Called without an event, it only checks the bounds.
   */
  pass(event?: Event): Event[] {
    if (!this.#holding) return event === undefined ? [] : [event];
    if (event !== undefined) {
      if (this.#pending.length === 0) this.#since = Date.now();
      this.#pending.push(event);
      this.#pendingChars += this.#size(event);
    }
    const bound = this.#pendingChars > this.#bound!.maxChars ? 'bytes' : this.#pending.length > 0 && Date.now() - this.#since > this.#bound!.maxMs ? 'time' : undefined;
    return bound ? this.flush(bound) : [];
  }

  /** Stops holding past `bound`: the held events, to send now; the rest streams. The miss is counted by the watch. */
  flush(bound: 'bytes' | 'time'): Event[] {
    if (!this.#holding) return [];
    this.#holding = false;
    this.#watch?.overflowed(bound);
    this.#shown += this.#pendingText;
    this.#pendingText = '';
    return this.take();
  }

  /** The held events, taken: sent before what a gate releases, or dropped when the answer is replaced. */
  take(): Event[] {
    const pending = this.#pending;
    this.#pending = [];
    this.#pendingChars = 0;
    return pending;
  }
}
