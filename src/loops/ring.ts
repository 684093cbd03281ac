/**
 * A fixed-capacity buffer of the most recent items: pushing past capacity drops the oldest. Every per-session list
 * the detector keeps is one of these, which is what bounds a session's memory whatever the agent does.
 * @internal
 */
export class Ring<T> {
  readonly capacity: number;
  #items: (T | undefined)[];
  #start = 0;
  #length = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
    // Grown on demand: a long window may be sized for 100,000 entries in a session that sees ten.
    this.#items = [];
  }

  get length(): number {
    return this.#length;
  }

  /** Appends `item`; returns the item dropped to make room, if any. */
  push(item: T): T | undefined {
    if (this.capacity === 0) return item;
    if (this.#length < this.capacity) {
      this.#items[(this.#start + this.#length) % this.capacity] = item;
      this.#length++;
      return undefined;
    }
    const dropped = this.#items[this.#start];
    this.#items[this.#start] = item;
    this.#start = (this.#start + 1) % this.capacity;
    return dropped;
  }

  /** The item `back` places from the newest: 0 is the newest. */
  fromEnd(back: number): T | undefined {
    if (back < 0 || back >= this.#length) return undefined;
    return this.#items[(this.#start + this.#length - 1 - back) % this.capacity];
  }

  /** The item `index` places from the oldest: 0 is the oldest. */
  at(index: number): T | undefined {
    if (index < 0 || index >= this.#length) return undefined;
    return this.#items[(this.#start + index) % this.capacity];
  }

  /** The oldest item, without removing it. */
  oldest(): T | undefined {
    return this.#length === 0 ? undefined : this.#items[this.#start];
  }

  /** Removes and returns the oldest item. */
  shift(): T | undefined {
    if (this.#length === 0) return undefined;
    const item = this.#items[this.#start];
    this.#items[this.#start] = undefined;
    this.#start = (this.#start + 1) % this.capacity;
    this.#length--;
    return item;
  }

  /** The items, oldest first (a copy; hot paths use `at` and `fromEnd`, which allocate nothing). */
  [Symbol.iterator](): IterableIterator<T> {
    return Array.from({ length: this.#length }, (_, i) => this.#items[(this.#start + i) % this.capacity]!)[Symbol.iterator]();
  }
}
