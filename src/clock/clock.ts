/** Where the core reads time. Injected everywhere so tests control it and nothing under `src/` calls `Date.now()`. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The real clock, the default when none is given. The only place in the core that reads the system time. */
export const systemClock: Clock = { now: () => Date.now() };
